package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agentic-debug-mode/debug-mode/internal/spool"
)

const releaseSecret = "hunter2-release-secret"

func releaseRecord(n int) string {
	return fmt.Sprintf(`{"hypothesisId":"H1","location":"a.go:1","message":"m","data":{"n":%d,"note":"password=%s-%d %s"},"timestamp":1784313728231}`,
		n, releaseSecret, n, strings.Repeat("x", 200)) + "\n"
}

func appendIncoming(t *testing.T, s *Session, text string) {
	t.Helper()
	f, err := os.OpenFile(s.AppendPath(), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}

func incomingBlocks(t *testing.T, s *Session) (content []byte, blocks int64) {
	t.Helper()
	b, err := os.ReadFile(s.AppendPath())
	if err != nil {
		t.Fatal(err)
	}
	var st unix.Stat_t
	if err := unix.Stat(s.AppendPath(), &st); err != nil {
		t.Fatal(err)
	}
	return b, st.Blocks
}

// TestSpoolReleasedAfterIngest: once lines are taken in, the append path
// reads back zeros where they were and occupies less disk; the incomplete
// line after them is kept whole for when it ends.
func TestSpoolReleasedAfterIngest(t *testing.T) {
	st, _ := testStore(t)
	s, err := st.Create()
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	for n := range 200 {
		text.WriteString(releaseRecord(n))
	}
	partial := `{"hypothesisId":"H1","location":"a.go:1","message":"m","data":"still being written`
	appendIncoming(t, s, text.String()+partial)
	if f, err := os.OpenFile(s.AppendPath(), os.O_RDONLY, 0); err == nil {
		f.Sync()
		f.Close()
	}
	_, before := incomingBlocks(t, s)
	stat, err := s.Status()
	if err != nil || stat.Events != 200 || stat.PendingBytes != int64(len(partial)) {
		t.Fatalf("status: %+v, %v", stat, err)
	}
	content, after := incomingBlocks(t, s)
	consumed := text.Len()
	if i := bytes.IndexFunc(content[:consumed], func(r rune) bool { return r != 0 }); i >= 0 {
		t.Fatalf("consumed byte %d of the append path still reads %q", i, content[i:min(i+40, consumed)])
	}
	if string(content[consumed:]) != partial {
		t.Fatalf("the incomplete line was changed: %q", content[consumed:])
	}
	if bytes.Contains(content, []byte(releaseSecret)) {
		t.Fatal("a consumed secret is still in the append path")
	}
	t.Logf("append path: %d bytes, %d → %d blocks of 512 bytes", len(content), before, after)
	if after >= before || after*512 > 8192 {
		t.Errorf("st_blocks %d → %d: the consumed %d bytes still occupy disk", before, after, consumed)
	}

	// The line ends: it is taken in and released like the others.
	appendIncoming(t, s, `","timestamp":1784313728231}`+"\n")
	if stat, _ := s.Status(); stat.Events != 201 || stat.PendingBytes != 0 {
		t.Fatalf("after the line ended: %d events, %d pending", stat.Events, stat.PendingBytes)
	}
	if content, _ := incomingBlocks(t, s); bytes.Count(content, []byte{0}) != len(content) {
		t.Fatal("the last line was not released")
	}
}

// TestKillBetweenCheckpointAndRelease: the service dies after the
// checkpoint that accounts for the lines, before the hole is punched. The
// next service stores nothing twice and loses nothing, and punches the hole
// itself without waiting for new lines. At the moment of every punch the
// checkpoint on disk already covers the released range.
func TestKillBetweenCheckpointAndRelease(t *testing.T) {
	st1, root := testStore(t)
	s, err := st1.Create()
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	for n := range 50 {
		text.WriteString(releaseRecord(n))
	}
	appendIncoming(t, s, text.String())

	defer func(orig func(*os.File, int64, int64) error) { releaseSpool = orig }(releaseSpool)
	var punched []int64
	releaseSpool = func(f *os.File, from, to int64) error {
		// The checkpoint must already be on disk, with nothing pending.
		var ck checkpoint
		if err := readJSON(root, s.path("spool.json"), &ck); err != nil || ck.Pending != nil || ck.Spool.Offset < to {
			t.Errorf("releasing up to %d while the checkpoint on disk is %+v (%v)", to, ck, err)
		}
		if punched == nil {
			punched = []int64{}
			runtime.Goexit() // the first service dies here
		}
		punched = append(punched, to)
		return spool.Release(f, from, to)
	}
	died := make(chan struct{})
	go func() { defer close(died); s.DrainSpool() }()
	<-died
	if content, _ := incomingBlocks(t, s); !bytes.Contains(content, []byte(releaseSecret)) {
		t.Fatal("the first service punched the hole before dying; the test proves nothing")
	}
	st1.Close()

	st2, err := Open(root, func() time.Time { return time.UnixMilli(1796083200000) }, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st2.Close()
	st2.PollSpools() // no new bytes: loaded only to release the old ones
	if len(punched) != 1 || punched[0] != int64(text.Len()) {
		t.Fatalf("the restarted service punched %v, want [%d]", punched, text.Len())
	}
	s2, err := st2.Get(s.ID())
	if err != nil {
		t.Fatal(err)
	}
	stat, err := s2.Status()
	if err != nil || stat.Events != 50 || stat.Rejected != 0 {
		t.Fatalf("after the restart: %+v, %v; want the 50 lines stored once", stat, err)
	}
	if content, _ := incomingBlocks(t, s2); bytes.Count(content, []byte{0}) != len(content) {
		t.Fatal("consumed bytes still in the append path after the restart")
	}
	// Released and recorded: the next service start loads nothing.
	st2.Close()
	st3, _ := Open(root, time.Now, nil)
	defer st3.Close()
	st3.PollSpools()
	if st3.mu.Lock(); len(st3.sessions) != 0 {
		t.Error("a fully released session was loaded again")
	}
	st3.mu.Unlock()
}

// TestReleaseUnsupportedReportedOnce: where the filesystem cannot punch
// holes, one warning per cycle says the raw records stay, and no drain
// tries again until a reset.
func TestReleaseUnsupportedReportedOnce(t *testing.T) {
	st, _ := testStore(t)
	s, err := st.Create()
	if err != nil {
		t.Fatal(err)
	}
	defer func(orig func(*os.File, int64, int64) error) { releaseSpool = orig }(releaseSpool)
	calls := 0
	releaseSpool = func(*os.File, int64, int64) error { calls++; return spool.ErrReleaseUnsupported }
	for n := range 3 {
		appendIncoming(t, s, releaseRecord(n))
		if err := s.DrainSpool(); err != nil {
			t.Fatalf("a filesystem without hole punching failed the drain: %v", err)
		}
	}
	stat, _ := s.Status()
	if calls != 1 || stat.Events != 3 || stat.Warnings != 1 || len(stat.Diagnostics) != 1 ||
		!strings.Contains(stat.Diagnostics[0].Reason, "cannot punch holes") {
		b, _ := json.Marshal(stat.Diagnostics)
		t.Fatalf("%d release attempts, %d events, %d warnings %s; want 1, 3, 1 saying the records stay", calls, stat.Events, stat.Warnings, b)
	}
	if _, err := s.Reset(); err != nil {
		t.Fatal(err)
	}
	appendIncoming(t, s, releaseRecord(9))
	s.DrainSpool()
	if stat, _ := s.Status(); calls != 2 || stat.Warnings != 1 {
		t.Fatalf("after a reset: %d attempts, %d warnings; want the new cycle to try and report again", calls, stat.Warnings)
	}
	// Any other failure is reported with its cause.
	releaseSpool = func(*os.File, int64, int64) error { return errors.New("EIO") }
	s.Reset()
	appendIncoming(t, s, releaseRecord(10))
	if stat, _ := s.Status(); len(stat.Diagnostics) != 1 || !strings.Contains(stat.Diagnostics[0].Reason, "EIO") {
		t.Fatalf("diagnostics %+v, want one naming the failure", stat.Diagnostics)
	}
}
