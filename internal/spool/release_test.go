package spool

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"golang.org/x/sys/unix"
)

// Filesystem kinds the release is tested on, by statfs magic, with the
// directories where one is usually found. DEBUG_MODE_TEST_<KIND>_DIR names
// another directory of that kind.
var fsKinds = []struct {
	name  string
	magic int64
	dirs  []string
}{
	{"ext4", unix.EXT4_SUPER_MAGIC, []string{os.TempDir(), "/var/tmp", os.Getenv("HOME")}},
	{"tmpfs", unix.TMPFS_MAGIC, []string{"/dev/shm", os.Getenv("XDG_RUNTIME_DIR"), "/run", os.TempDir()}},
}

// dirOfKind returns a fresh directory on a filesystem of the kind, removed
// after the test, or skips the test saying where it looked.
func dirOfKind(t *testing.T, name string, magic int64, dirs []string) string {
	t.Helper()
	env := "DEBUG_MODE_TEST_" + strings.ToUpper(name) + "_DIR"
	if d := os.Getenv(env); d != "" {
		dirs = []string{d}
	}
	for _, d := range dirs {
		var st unix.Statfs_t
		if d == "" || unix.Statfs(d, &st) != nil || st.Type != magic {
			continue
		}
		dir, err := os.MkdirTemp(d, "spool-release-")
		if err != nil {
			continue // not writable
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
		return dir
	}
	t.Skipf("no writable %s directory (tried %q; set %s to one)", name, dirs, env)
	return ""
}

func blocks(t *testing.T, f *os.File) int64 {
	t.Helper()
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		t.Fatal(err)
	}
	return st.Blocks
}

// TestReleaseZeroesConsumedBytes: after Release, every byte of the range
// reads back as zero, wherever its ends fall inside a block, the bytes after
// it are untouched, the file keeps its size, and it occupies less disk.
func TestReleaseZeroesConsumedBytes(t *testing.T) {
	for _, k := range fsKinds {
		t.Run(k.name, func(t *testing.T) {
			dir := dirOfKind(t, k.name, k.magic, k.dirs)
			f, err := os.OpenFile(filepath.Join(dir, "incoming.ndjson"), os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			var content []byte
			for i := 0; len(content) < 64<<10; i++ {
				content = fmt.Appendf(content, `{"n":%d,"password":"hunter2-%d"}`+"\n", i, i)
			}
			f.Write(content)
			before := blocks(t, f)
			// Two releases ending and starting inside a block, as consecutive
			// drains do.
			for _, to := range []int64{5000, 40_000 + 123} {
				var from int64
				if to != 5000 {
					from = 5000
				}
				if err := Release(f, from, to); err != nil {
					t.Fatal(err)
				}
				got := make([]byte, len(content))
				if _, err := f.ReadAt(got, 0); err != nil {
					t.Fatal(err)
				}
				if i := bytes.IndexFunc(got[:to], func(r rune) bool { return r != 0 }); i >= 0 {
					t.Fatalf("released byte %d still reads %q", i, got[i:min(i+20, int(to))])
				}
				if !bytes.Equal(got[to:], content[to:]) {
					t.Fatalf("bytes after the released range (from %d) changed", to)
				}
			}
			if fi, _ := f.Stat(); fi.Size() != int64(len(content)) {
				t.Errorf("size %d after release, want %d (kept, so O_APPEND writers notice nothing)", fi.Size(), len(content))
			}
			after := blocks(t, f)
			t.Logf("%s: %d → %d blocks of 512 bytes for a %d-byte file with 40,123 bytes released", k.name, before, after, len(content))
			if after >= before {
				t.Errorf("st_blocks %d → %d: the released range still occupies disk", before, after)
			}
		})
	}
}

// TestReleaseUnderConcurrentAppenders: programs appending while the reader
// takes lines in and releases them lose nothing and are never overwritten;
// the reader never sees a released (zeroed) byte.
func TestReleaseUnderConcurrentAppenders(t *testing.T) {
	for _, k := range fsKinds {
		t.Run(k.name, func(t *testing.T) {
			dir := dirOfKind(t, k.name, k.magic, k.dirs)
			path := filepath.Join(dir, "incoming.ndjson")
			f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			const writers, perWriter = 4, 3000
			var wg sync.WaitGroup
			for w := range writers {
				wg.Go(func() {
					a, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
					if err != nil {
						t.Error(err)
						return
					}
					defer a.Close()
					for n := range perWriter {
						a.WriteString(fmt.Sprintf("w%d n%d %s\n", w, n, strings.Repeat("x", n%300)))
					}
				})
			}
			done := make(chan struct{})
			go func() { wg.Wait(); close(done) }()
			r := &Reader{MaxLine: 4096, Chunk: 8192}
			var pos Position
			var released int64
			seen := map[string]bool{}
			finished := false
			for !finished {
				select {
				case <-done:
					finished = true // one more full drain below
				default:
				}
				for {
					lines, next, _, err := r.Read(f, pos)
					if err != nil {
						t.Fatal(err)
					}
					for _, l := range lines {
						var w, n int
						if _, err := fmt.Sscanf(string(l.Data), "w%d n%d", &w, &n); err != nil || l.Oversize || bytes.IndexByte(l.Data, 0) >= 0 {
							t.Fatalf("line %d is damaged: %q", l.Number, l.Data)
						}
						seen[fmt.Sprint(w, n)] = true
					}
					if next == pos {
						break
					}
					pos = next
					if err := Release(f, released, pos.Offset); err != nil {
						t.Fatal(err)
					}
					released = pos.Offset
				}
			}
			if len(seen) != writers*perWriter || pos.Skipping {
				t.Fatalf("took in %d distinct lines, want %d", len(seen), writers*perWriter)
			}
			if n := Pending(f, pos); n != 0 {
				t.Fatalf("%d bytes left over", n)
			}
		})
	}
}
