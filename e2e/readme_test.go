package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The README's transcripts are what the commands print. A ```text block
// right after "<!-- transcript: demo -->" must appear in ./scripts/demo.sh's
// output; one after "<!-- transcript: run -->" is run, command by command,
// in a fresh HOME. Both are compared after ids, ports, clocks, dates and
// home folders are normalised; a line "…" stands for any number of lines.

type transcript struct {
	mode  string // demo or run
	line  int    // where the block starts in README.md
	lines []string
}

func readmeTranscripts(t *testing.T) []transcript {
	t.Helper()
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var out []transcript
	lines := strings.Split(string(b), "\n")
	for i := 0; i < len(lines); i++ {
		m := regexp.MustCompile(`^<!-- transcript: (demo|run) -->$`).FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		if i+1 >= len(lines) || lines[i+1] != "```text" {
			t.Fatalf("README.md:%d: a transcript marker must be followed by a ```text block", i+1)
		}
		tr := transcript{mode: m[1], line: i + 2}
		for i += 2; i < len(lines) && lines[i] != "```"; i++ {
			tr.lines = append(tr.lines, lines[i])
		}
		out = append(out, tr)
	}
	return out
}

var (
	uuidRE     = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	captureRE  = regexp.MustCompile(`\bc-[0-9a-f]{12}\b`)
	stateRE    = regexp.MustCompile(`\S*/sessions/<ID>/`)
	portRE     = regexp.MustCompile(`127\.0\.0\.1:\d+`)
	clockRE    = regexp.MustCompile(`\b\d\d:\d\d:\d\d\.\d\d\d\b`)
	dateTimeRE = regexp.MustCompile(`\b\d{4}-\d\d-\d\d <TIME>`)
	dateRE     = regexp.MustCompile(`^date \d{4}-\d\d-\d\d$`)
	workRE     = regexp.MustCompile(`\S*/tmp\.[A-Za-z0-9]{6,}`)
)

// normalise makes two runs' output comparable: one line at a time.
func normalise(line, home string) string {
	if home != "" {
		line = strings.ReplaceAll(line, home, "/home/you")
	}
	line = uuidRE.ReplaceAllString(line, "<ID>")
	line = captureRE.ReplaceAllString(line, "c-<CAPTURE>")
	line = stateRE.ReplaceAllString(line, "<STATE>/sessions/<ID>/")
	line = portRE.ReplaceAllString(line, "127.0.0.1:<PORT>")
	line = clockRE.ReplaceAllString(line, "<TIME>")
	line = dateTimeRE.ReplaceAllString(line, "<DATE> <TIME>")
	line = dateRE.ReplaceAllString(line, "date <DATE>")
	line = workRE.ReplaceAllString(line, "<WORK>")
	return strings.TrimRight(line, " \t")
}

// matchExcerpt reports whether want (with "…" gaps) appears in got in
// order; it returns the run of lines (between gaps) that could not be placed.
func matchExcerpt(want, got []string) (bool, string) {
	var segs [][]string
	cur := []string{}
	for _, w := range want {
		if w == "…" {
			segs, cur = append(segs, cur), []string{}
			continue
		}
		cur = append(cur, w)
	}
	segs = append(segs, cur)
	at := 0
	for _, seg := range segs {
		if len(seg) == 0 {
			continue
		}
		found := -1
		for i := at; i+len(seg) <= len(got) && found < 0; i++ {
			ok := true
			for j := range seg {
				if got[i+j] != seg[j] {
					ok = false
					break
				}
			}
			if ok {
				found = i
			}
		}
		if found < 0 {
			return false, strings.Join(seg, "\n")
		}
		at = found + len(seg)
	}
	return true, ""
}

func normaliseAll(lines []string, home string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = normalise(l, home)
	}
	return out
}

func TestReadmeTranscripts(t *testing.T) {
	trs := readmeTranscripts(t)
	if len(trs) < 5 {
		t.Fatalf("README.md has %d transcripts; the walkthrough alone has more", len(trs))
	}
	for _, tr := range trs {
		switch tr.mode {
		case "demo":
			stdout, _ := runDemo(t)
			got := normaliseAll(strings.Split(stdout, "\n"), "")
			if ok, line := matchExcerpt(normaliseAll(tr.lines, ""), got); !ok {
				t.Errorf("README.md:%d: the demo does not print this (these lines are not printed, in this order after the ones before them:\n%s)\n\ndemo output, normalised:\n%s",
					tr.line, line, strings.Join(got, "\n"))
			}
		case "run":
			runTranscript(t, tr)
		}
	}
}

// runTranscript runs each "$ " line with bash in a fresh HOME, debug-mode
// first on PATH, and compares its output with the lines that follow it. The
// README's example session id stands for the last one created.
func runTranscript(t *testing.T, tr transcript) {
	home := t.TempDir()
	env := []string{"HOME=" + home, "PATH=" + filepath.Dir(binary) + string(os.PathListSeparator) + os.Getenv("PATH")}
	defer func() {
		stop := exec.Command(binary, "stop")
		stop.Env = env
		stop.Run()
	}()
	lastID := ""
	for i := 0; i < len(tr.lines); i++ {
		line := tr.lines[i]
		if !strings.HasPrefix(line, "$ ") {
			t.Fatalf("README.md:%d: expected a command line starting with \"$ \", got %q", tr.line+i, line)
		}
		var want []string
		for i+1 < len(tr.lines) && !strings.HasPrefix(tr.lines[i+1], "$ ") {
			i++
			want = append(want, tr.lines[i])
		}
		command := line[2:]
		if lastID != "" {
			command = uuidRE.ReplaceAllString(command, lastID)
		}
		cmd := exec.Command("bash", "-c", command)
		cmd.Dir, cmd.Env = home, env
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			t.Errorf("README.md:%d: %s: %v\n%s", tr.line, command, err, out.String())
			return
		}
		if m := regexp.MustCompile(`(?m)^Session ID +(\S+)$`).FindStringSubmatch(out.String()); m != nil {
			lastID = m[1]
		}
		got := normaliseAll(strings.Split(strings.TrimRight(out.String(), "\n"), "\n"), home)
		exp := normaliseAll(want, "")
		// A full transcript: every line, unless it elides with "…".
		if ok, first := matchExcerpt(exp, got); !ok || (!contains(exp, "…") && len(exp) != len(got)) {
			t.Errorf("README.md:%d: %s prints (normalised):\n%s\n\nthe README shows:\n%s\n(not matched:\n%s)",
				tr.line, line, strings.Join(got, "\n"), strings.Join(exp, "\n"), first)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
