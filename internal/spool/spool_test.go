package spool

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func appendTo(t *testing.T, f *os.File, s string) {
	t.Helper()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

func lineTexts(lines []Line) []string {
	var out []string
	for _, l := range lines {
		s := string(l.Data)
		if l.Oversize {
			s = "OVERSIZE:" + s
		}
		out = append(out, s)
	}
	return out
}

func TestReadCompleteLinesOnly(t *testing.T) {
	f, err := os.OpenFile(filepath.Join(t.TempDir(), "incoming.ndjson"), os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := &Reader{MaxLine: 16}
	appendTo(t, f, "a\nbb\r\nccc")
	lines, pos, _, err := r.Read(f, Position{})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(lineTexts(lines), "|"); got != "a|bb\r" {
		t.Fatalf("lines = %q", got)
	}
	if pos.Offset != 6 || pos.Lines != 2 {
		t.Fatalf("pos = %+v, want offset 6, 2 lines", pos)
	}
	if lines[1].Number != 2 || lines[1].Offset != 2 {
		t.Fatalf("second line numbered %d at %d", lines[1].Number, lines[1].Offset)
	}
	if n := Pending(f, pos); n != 3 {
		t.Fatalf("pending = %d, want 3", n)
	}
	// The partial line is handed out only once it is complete.
	lines, pos, _, _ = r.Read(f, pos)
	if len(lines) != 0 {
		t.Fatalf("partial line handed out: %q", lineTexts(lines))
	}
	appendTo(t, f, "c\n")
	lines, pos, _, _ = r.Read(f, pos)
	if got := strings.Join(lineTexts(lines), "|"); got != "cccc" || lines[0].Number != 3 {
		t.Fatalf("lines = %q", got)
	}
	if Pending(f, pos) != 0 {
		t.Fatal("nothing should be pending")
	}
}

func TestOversizeLineReportedOnceAndSkipped(t *testing.T) {
	f, _ := os.OpenFile(filepath.Join(t.TempDir(), "s"), os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
	defer f.Close()
	r := &Reader{MaxLine: 8, Chunk: 8}
	// An oversize line still being written: reported once, then skipped
	// through its newline however it grows.
	appendTo(t, f, "0123456789abcdef")
	lines, pos, _, _ := r.Read(f, Position{})
	if got := lineTexts(lines); len(got) != 1 || got[0] != "OVERSIZE:01234567" {
		t.Fatalf("lines = %q", got)
	}
	if !pos.Skipping {
		t.Fatal("reader should be skipping the rest of the oversize line")
	}
	appendTo(t, f, "more and more")
	lines, pos, _, _ = r.Read(f, pos)
	if len(lines) != 0 || !pos.Skipping {
		t.Fatalf("still inside the oversize line: %q %+v", lineTexts(lines), pos)
	}
	appendTo(t, f, "end\nok\n")
	var all []Line
	for {
		lines, next, _, _ := r.Read(f, pos)
		all = append(all, lines...)
		if next == pos {
			break
		}
		pos = next
	}
	if got := strings.Join(lineTexts(all), "|"); got != "ok" {
		t.Fatalf("after skipping: %q", got)
	}
	if all[0].Number != 2 {
		t.Fatalf("line after the oversize one is line %d, want 2", all[0].Number)
	}
}

func TestCompleteOversizeLine(t *testing.T) {
	f, _ := os.OpenFile(filepath.Join(t.TempDir(), "s"), os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
	defer f.Close()
	r := &Reader{MaxLine: 4}
	appendTo(t, f, "123456789\nab\n")
	lines, _, _, _ := r.Read(f, Position{})
	if got := strings.Join(lineTexts(lines), "|"); got != "OVERSIZE:1234|ab" {
		t.Fatalf("lines = %q", got)
	}
}

func TestTruncatedFileIsReadAgain(t *testing.T) {
	f, _ := os.OpenFile(filepath.Join(t.TempDir(), "s"), os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
	defer f.Close()
	r := &Reader{MaxLine: 64}
	appendTo(t, f, "one\ntwo\n")
	_, pos, _, _ := r.Read(f, Position{})
	f.Truncate(0)
	appendTo(t, f, "x\n")
	lines, _, truncated, _ := r.Read(f, pos)
	if !truncated || len(lines) != 1 || string(lines[0].Data) != "x" {
		t.Fatalf("truncated=%v lines=%q", truncated, lineTexts(lines))
	}
}

// TestOversizeLineSkippedInOneRead: the rest of an oversize line, however
// long, is discarded by one read, so the line after it is handed out at
// once instead of one chunk per poll later.
func TestOversizeLineSkippedInOneRead(t *testing.T) {
	f, _ := os.OpenFile(filepath.Join(t.TempDir(), "s"), os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
	defer f.Close()
	r := &Reader{MaxLine: 8, Chunk: 16}
	appendTo(t, f, strings.Repeat("z", 100*16)+"\nok\n")
	lines, pos, _, _ := r.Read(f, Position{})
	if got := lineTexts(lines); len(got) != 1 || got[0] != "OVERSIZE:zzzzzzzz" || !pos.Skipping {
		t.Fatalf("first read: %q %+v, want the oversize line reported and skipping", got, pos)
	}
	if n := Pending(f, pos); n != 0 {
		t.Errorf("pending = %d while skipping a refused line, want 0 (it is not an incomplete record)", n)
	}
	lines, pos, _, _ = r.Read(f, pos)
	if got := strings.Join(lineTexts(lines), "|"); got != "ok" || pos.Skipping || lines[0].Number != 2 {
		t.Fatalf("second read: %q %+v, want line 2 \"ok\" after the skipped line", got, pos)
	}

	// Still being written: one read skips all there is and keeps skipping.
	appendTo(t, f, strings.Repeat("y", 50*16))
	lines, pos, _, _ = r.Read(f, pos)
	if len(lines) != 1 || !lines[0].Oversize || !pos.Skipping {
		t.Fatalf("third read: %q %+v", lineTexts(lines), pos)
	}
	appendTo(t, f, strings.Repeat("y", 50*16))
	st, _ := f.Stat()
	if _, pos, _, _ = r.Read(f, pos); pos.Offset != st.Size() || !pos.Skipping {
		t.Fatalf("skipping stopped at %+v, want at the end of the file (%d)", pos, st.Size())
	}
}

// BenchmarkSkipOversize: a 100 MB line (the size that stalled ingest for
// ~20 s when it was skipped 1 MiB per poll) is skipped by one Read.
func BenchmarkSkipOversize(b *testing.B) {
	f, err := os.OpenFile(filepath.Join(b.TempDir(), "s"), os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	const size = 100 << 20
	line := strings.Repeat("z", 1<<20)
	for range size >> 20 {
		f.WriteString(line)
	}
	f.WriteString("\nok\n")
	r := &Reader{MaxLine: 64<<10 + 1}
	b.SetBytes(size)
	for b.Loop() {
		lines, _, _, err := r.Read(f, Position{Offset: 1, Skipping: true})
		if err != nil || len(lines) != 1 || string(lines[0].Data) != "ok" {
			b.Fatalf("%q %v", lineTexts(lines), err)
		}
	}
}
