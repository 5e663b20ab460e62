package spool

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// FuzzReader: however the bytes arrive (appended in pieces, read in small
// chunks), the reader hands out exactly the complete lines, each once, in
// order, oversize ones reported by prefix, and never a partial last line;
// releasing what it consumed after every read never touches what it has not.
func FuzzReader(f *testing.F) {
	f.Add([]byte("a\nbb\r\nccc"), uint8(3), uint8(4))
	f.Add([]byte("0123456789abcdef\nok\n"), uint8(5), uint8(8))
	f.Add([]byte("\n\n\n"), uint8(1), uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, piece, maxLine uint8) {
		if piece == 0 || maxLine == 0 {
			return
		}
		path := filepath.Join(t.TempDir(), "s")
		file, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		defer file.Close()
		r := &Reader{MaxLine: int(maxLine), Chunk: int(piece)}
		var got []string
		var pos Position
		var released int64
		for off := 0; off < len(data); off += int(piece) {
			file.Write(data[off:min(off+int(piece), len(data))])
			for {
				lines, next, _, err := r.Read(file, pos)
				if err != nil {
					t.Fatal(err)
				}
				for _, l := range lines {
					s := string(l.Data)
					if l.Oversize {
						s = "OVERSIZE:" + s
					}
					got = append(got, s)
				}
				if next == pos {
					break
				}
				pos = next
				if err := Release(file, released, pos.Offset); err != nil && err != ErrReleaseUnsupported {
					t.Fatal(err)
				}
				released = pos.Offset
			}
		}
		// The expected lines: complete lines only, the last partial one kept back.
		var want []string
		complete := data[:bytes.LastIndexByte(data, '\n')+1]
		for _, l := range bytes.SplitAfter(complete, []byte{'\n'}) {
			if len(l) == 0 {
				continue
			}
			l = l[:len(l)-1]
			if len(l) > int(maxLine) {
				want = append(want, "OVERSIZE:"+string(l[:maxLine]))
			} else {
				want = append(want, string(l))
			}
		}
		// An unfinished oversize last line is reported as soon as it is known.
		if rest := data[len(complete):]; len(rest) > int(maxLine) {
			want = append(want, "OVERSIZE:"+string(rest[:maxLine]))
		}
		if len(got) != len(want) {
			t.Fatalf("got %d lines %q, want %d %q", len(got), got, len(want), want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("line %d: got %q, want %q", i, got[i], want[i])
			}
		}
	})
}
