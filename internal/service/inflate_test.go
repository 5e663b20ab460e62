package service

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"testing"
)

func gzipOf(t *testing.T, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	w, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	w.Write(data)
	w.Close()
	return b.Bytes()
}

func zlibOf(t *testing.T, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	w, _ := zlib.NewWriterLevel(&b, zlib.BestCompression)
	w.Write(data)
	w.Close()
	return b.Bytes()
}

// allocated is what f allocates, in bytes.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestDecompressAllocatesOnlyWhatItReturns: a compressed body is inflated
// into one buffer of exactly its size, never grown by doubling, and a bomb
// is refused without allocating its inflated size at all (constant memory,
// whatever it claims in its gzip trailer).
func TestDecompressAllocatesOnlyWhatItReturns(t *testing.T) {
	bomb := make([]byte, 60<<20)
	text := bytes.Repeat([]byte(`{"hypothesisId":"H1","location":"a.py:1","message":"m","data":12345}`+"\n"), (5<<20)/70)
	forged := func(b []byte, isize uint32) []byte {
		b = bytes.Clone(b)
		binary.LittleEndian.PutUint32(b[len(b)-4:], isize)
		return b
	}
	members := bytes.Repeat(gzipOf(t, make([]byte, 1<<20)), 3) // three members; the trailer names only the last
	for _, c := range []struct {
		name, ce string
		raw      []byte
		want     []byte // nil: refused as too large
		maxAlloc uint64
	}{
		{"gzip bomb", "gzip", gzipOf(t, bomb), nil, 256 << 10},
		{"gzip bomb with a forged small trailer", "gzip", forged(gzipOf(t, bomb), 100), nil, 256 << 10},
		{"deflate bomb", "deflate", zlibOf(t, bomb), nil, 256 << 10},
		{"gzip, 5 MiB", "gzip", gzipOf(t, text), text, uint64(len(text)) + 256<<10},
		{"deflate, 5 MiB", "deflate", zlibOf(t, text), text, uint64(len(text)) + 256<<10},
		{"gzip of three members", "gzip", members, make([]byte, 3<<20), 3<<20 + 1<<20 + 256<<10}, // the last member's size first, then the whole
		{"gzip of exactly the limit", "gzip", gzipOf(t, make([]byte, MaxBodyBytes)), make([]byte, MaxBodyBytes), MaxBodyBytes + 256<<10},
		{"gzip one byte over the limit", "gzip", gzipOf(t, make([]byte, MaxBodyBytes+1)), nil, 256 << 10},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got []byte
			var err error
			n := allocated(func() { got, err = inflate(c.raw, c.ce, nil) })
			switch {
			case c.want == nil && !errors.Is(err, errDecompressedTooLarge):
				t.Errorf("err %v, want too large", err)
			case c.want != nil && (err != nil || !bytes.Equal(got, c.want)):
				t.Errorf("err %v, %d bytes back, want %d", err, len(got), len(c.want))
			}
			if n > c.maxAlloc {
				t.Errorf("allocated %s, want at most %s", kib(n), kib(c.maxAlloc))
			}
		})
	}
	if _, err := inflate(forged(gzipOf(t, text), 100), "gzip", nil); !errors.Is(err, errBadCompression) {
		t.Errorf("a forged trailer on a body that fits: %v, want bad compression", err)
	}
	// A stream cut off before its end (here: its checksum dropped, the last
	// four bytes still read as a size larger than the data) is refused, not
	// taken as a short body.
	small := gzipOf(t, text[:100000])
	cut := append(bytes.Clone(small[:len(small)-8]), 0x40, 0x0d, 0x03, 0x00) // 200,000
	if got, err := inflate(cut, "gzip", nil); !errors.Is(err, errBadCompression) {
		t.Errorf("a cut-off gzip stream: %d bytes, err %v; want bad compression", len(got), err)
	}
	z := zlibOf(t, text[:100000])
	if got, err := inflate(z[:len(z)/2], "deflate", nil); !errors.Is(err, errBadCompression) {
		t.Errorf("a cut-off deflate stream: %d bytes, err %v; want bad compression", len(got), err)
	}
}

func kib(n uint64) string { return fmt.Sprintf("%d KiB", n>>10) }
