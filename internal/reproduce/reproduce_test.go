package reproduce

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"
)

// Run starts the supervisor from os.Executable(), which in a test is this
// test binary: it must answer to the supervisor's hidden command.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == SupervisorCommand {
		os.Exit(Supervise(os.Args[2:]))
	}
	os.Exit(m.Run())
}

func run(t *testing.T, timeout time.Duration, args ...string) Result {
	t.Helper()
	path, err := Resolve(args[0])
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), Spec{Path: path, Args: args, Env: os.Environ(), Timeout: timeout, Grace: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func kept(s *Stream) string { b, _, _ := s.Kept(); return string(b) }

func TestExitStatusAndOutput(t *testing.T) {
	res := run(t, 10*time.Second, "sh", "-c", "echo out; echo err >&2; read x; echo \"stdin:[$x]\"; exit 7")
	if res.End != EndExited || res.ExitCode != 7 || res.Signal != "" {
		t.Fatalf("report %+v, want exit 7", res.Report)
	}
	if got := kept(res.Stdout); got != "out\nstdin:[]\n" {
		t.Fatalf("stdout %q (stdin must be /dev/null)", got)
	}
	if got := kept(res.Stderr); got != "err\n" {
		t.Fatalf("stderr %q", got)
	}
	res = run(t, 10*time.Second, "sh", "-c", "kill -KILL $$")
	if res.ExitCode != -1 || res.Signal != "SIGKILL" {
		t.Fatalf("report %+v, want ended by SIGKILL", res.Report)
	}
}

// alive says whether pid is a live process (not a zombie).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	return i > 0 && i+2 < len(b) && b[i+2] != 'Z'
}

// pids reads the pids a test program wrote, one per line.
func pids(t *testing.T, file string, want int) []int {
	t.Helper()
	var out []int
	deadline := time.Now().Add(5 * time.Second)
	for {
		b, _ := os.ReadFile(file)
		out = out[:0]
		for _, f := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(f); err == nil {
				out = append(out, n)
			}
		}
		if len(out) >= want || time.Now().After(deadline) {
			return out
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestTimeoutEndsTheWholeTree: at the timeout every process of the tree
// ends, the command's group, a grandchild that made a session of its own
// (setsid) and one that was double-forked away, even though they ignore
// SIGTERM.
func TestTimeoutEndsTheWholeTree(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "pids")
	script := `trap "" TERM
echo $$ >> "$1"
sleep 60 & echo $! >> "$1"
setsid sh -c 'trap "" TERM; echo $$ >> "$1"; exec sleep 61' sh "$1" &
( sh -c 'trap "" TERM; echo $$ >> "$1"; exec sleep 62' sh "$1" & ) 
wait`
	start := time.Now()
	res := run(t, 700*time.Millisecond, "sh", "-c", script, "sh", file)
	if res.End != EndTimeout || !res.Killed {
		t.Fatalf("report %+v, want a timeout that needed SIGKILL", res.Report)
	}
	if took := time.Since(start); took > 20*time.Second {
		t.Fatalf("took %s", took)
	}
	got := pids(t, file, 4)
	if len(got) < 4 {
		t.Fatalf("pids %v, want 4", got)
	}
	for _, p := range got {
		if alive(p) {
			syscall.Kill(p, syscall.SIGKILL)
			t.Errorf("process %d is still alive after the timeout", p)
		}
	}
	if res.Processes < 4 {
		t.Errorf("reaped %d processes, want every one of the 4", res.Processes)
	}
}

// TestWaitsForOrphans: a grandchild that was double-forked away and writes
// after its parents ended is waited for, so what it writes is there when
// Run returns.
func TestWaitsForOrphans(t *testing.T) {
	file := filepath.Join(t.TempDir(), "late")
	res := run(t, 10*time.Second, "sh", "-c", `( setsid sh -c 'sleep 0.4; echo done > "$1"; echo late-output' sh "$1" & ) ; echo parent-done`, "sh", file)
	if b, err := os.ReadFile(file); err != nil || string(b) != "done\n" {
		t.Fatalf("the orphan had not finished when Run returned: %q %v (report %+v)", b, err, res.Report)
	}
	if res.Processes < 2 || res.TreeMs < 400 || !res.Subreaper {
		t.Fatalf("report %+v, want the orphan reaped after 400 ms", res.Report)
	}
	if got := kept(res.Stdout); !strings.Contains(got, "late-output") {
		t.Fatalf("stdout %q lacks the orphan's output", got)
	}
}

func TestInterruptEndsTheTree(t *testing.T) {
	file := filepath.Join(t.TempDir(), "pids")
	path, _ := Resolve("sh")
	ctx, cancel := context.WithCancel(context.Background())
	go func() { pids(t, file, 2); cancel() }()
	res, err := Run(ctx, Spec{Path: path, Args: []string{"sh", "-c", `echo $$ >> "$1"; setsid sleep 63 & echo $! >> "$1"; wait`, "sh", file},
		Env: os.Environ(), Timeout: time.Minute, Grace: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if res.End != EndInterrupted {
		t.Fatalf("report %+v, want interrupted", res.Report)
	}
	for _, p := range pids(t, file, 2) {
		if alive(p) {
			syscall.Kill(p, syscall.SIGKILL)
			t.Errorf("process %d survived the interruption", p)
		}
	}
}

func TestNotStarted(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain.sh")
	os.WriteFile(plain, []byte("echo hi\n"), 0o644)
	noShebang := filepath.Join(dir, "noshebang")
	os.WriteFile(noShebang, []byte{0x7f, 'X', 'Y', 0, 1, 2}, 0o755)
	badInterp := filepath.Join(dir, "badinterp")
	os.WriteFile(badInterp, []byte("#!/no/such/interpreter\n"), 0o755)
	for _, c := range []struct{ name, want string }{
		{"no-such-command-xyz", "not found in PATH"},
		{filepath.Join(dir, "missing"), "no such file"},
		{plain, "not executable"},
		{dir, "is a folder"},
	} {
		_, err := Resolve(c.name)
		var ns *NotStartedError
		if !errors.As(err, &ns) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Resolve(%s) = %v, want %q", c.name, err, c.want)
		}
	}
	for _, c := range []struct{ name, want string }{
		{noShebang, "not a program this system can run"},
		{badInterp, "interpreter"},
	} {
		_, err := Run(context.Background(), Spec{Path: c.name, Args: []string{c.name}, Env: os.Environ(), Timeout: 10 * time.Second})
		var ns *NotStartedError
		if !errors.As(err, &ns) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Run(%s) = %v, want %q", c.name, err, c.want)
		}
	}
}

// TestOutputBounded: a stream of any length keeps its head and tail, cut
// at lines, with one marker that says how much is missing.
func TestOutputBounded(t *testing.T) {
	s := newStream(1000, 3000)
	var all bytes.Buffer
	for i := 0; i < 5000; i++ {
		line := "line " + strconv.Itoa(i) + "\n"
		all.WriteString(line)
		s.Write([]byte(line))
	}
	b, total, omitted := s.Kept()
	if total != int64(all.Len()) {
		t.Fatalf("total %d, want %d", total, all.Len())
	}
	text := string(b)
	marker := OmittedMarker(omitted)
	head, tail, ok := strings.Cut(text, marker+"\n")
	if !ok {
		t.Fatalf("no marker in %q", text[:200])
	}
	if !strings.HasPrefix(all.String(), head) || !strings.HasSuffix(all.String(), tail) || !strings.HasSuffix(head, "\n") {
		t.Fatal("head or tail is not the stream's own start or end, cut at a line")
	}
	if strings.HasPrefix(tail, "ine") || !strings.HasPrefix(tail, "line ") {
		t.Fatalf("tail starts mid-line: %q", tail[:20])
	}
	if int64(len(head)+len(tail))+omitted != total || len(head) > 1000 || len(tail) > 3000 {
		t.Fatalf("kept %d+%d bytes, omitted %d of %d", len(head), len(tail), omitted, total)
	}
	// Short output is kept whole, and a single huge write too is bounded.
	s = newStream(10, 20)
	s.Write([]byte("abc"))
	if b, _, o := s.Kept(); string(b) != "abc" || o != 0 {
		t.Fatalf("short: %q %d", b, o)
	}
	s.Write(bytes.Repeat([]byte("x"), 1<<20))
	if b, total, _ := s.Kept(); len(b) > 10+20+len(OmittedMarker(1<<20))+2 || total != 3+1<<20 {
		t.Fatalf("huge write kept %d bytes of %d", len(b), total)
	}
}

// TestOutputBinary: output that is not text (NULs, a PNG, lone
// surrogates, random bytes) is kept as valid UTF-8 with every invalid byte
// written \xNN, and escaping never takes it past the bounds.
func TestOutputBinary(t *testing.T) {
	s := newStream(100, 300)
	s.Write([]byte("a\x00b\xffc\xed\xa0\x80d\x89PNG\r\n\x1a\n"))
	if got := kept(s); got != `a`+"\x00"+`b\xffc\xed\xa0\x80d\x89PNG`+"\r\n\x1a\n" {
		t.Fatalf("kept %q", got)
	}
	rnd := rand.New(rand.NewPCG(3, 4))
	for _, size := range []int{350, 400, 3000, 1 << 20} {
		s := newStream(100, 300)
		b := make([]byte, size)
		for i := range b {
			b[i] = byte(rnd.Uint32())
		}
		s.Write(b)
		text, total, omitted := s.Kept()
		if !utf8.Valid(text) || total != int64(size) {
			t.Fatalf("%d bytes: kept %d bytes, valid UTF-8 %v, total %d", size, len(text), utf8.Valid(text), total)
		}
		if max := 100 + 300 + len(OmittedMarker(omitted)) + 2; len(text) > max || omitted <= 0 {
			t.Fatalf("%d bytes: kept %d bytes (at most %d), omitted %d", size, len(text), max, omitted)
		}
		if !strings.Contains(string(text), `\x`) {
			t.Fatalf("%d bytes: no \\x escape in %q", size, text)
		}
	}
	// Text from an older client is escaped and bounded the same way.
	raw := bytes.Repeat([]byte{0xff}, HeadBytes+TailBytes)
	text, omitted := KeepText(raw, 7)
	if !utf8.Valid(text) || len(text) > HeadBytes+TailBytes+200 || omitted <= 7 {
		t.Fatalf("KeepText kept %d bytes, omitted %d", len(text), omitted)
	}
	if text, omitted := KeepText([]byte("ok\n"), 0); string(text) != "ok\n" || omitted != 0 {
		t.Fatalf("KeepText changed text: %q %d", text, omitted)
	}
}

// TestLongCommandLine: a command line longer than one argument may be
// (128 KiB on Linux) reaches the command whole.
func TestLongCommandLine(t *testing.T) {
	args := []string{"sh", "-c", `echo $#`, "sh"}
	for i := 0; i < 30000; i++ {
		args = append(args, "argument-"+strconv.Itoa(i))
	}
	res := run(t, 10*time.Second, args...)
	if got := kept(res.Stdout); got != "30000\n" {
		t.Fatalf("stdout %q, report %+v", got, res.Report)
	}
}
