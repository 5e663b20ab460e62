package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The skill's reading-evidence reference shows jq programs and a diff with
// their output. Every ```text block right after a "<!-- checked" comment is
// run here, command by command, against a real session holding the events
// the reference describes (a cache's lookup loop, one event per lookup): the
// capture <capture> before the fix, the live cycle after it. So the
// documented programs and their answers cannot rot.

const readingEvidence = "../skills/debug-mode/references/reading-evidence.md"

// cacheLookups is one cycle of the reference's cache: one event per lookup
// (key, stale, age_ms, gen) and one refresh between the fourth and fifth.
func cacheLookups(fixed bool) []string {
	type lookup struct {
		key      string
		stale    bool
		age, gen int
	}
	// Before the fix, two lookups read an entry of an older generation.
	before := []lookup{{"a", false, 3, 1}, {"b", false, 5, 1}, {"c", false, 2, 1}, {"a", true, 40, 1},
		{"b", false, 4, 2}, {"c", true, 55, 1}, {"e", false, 1, 2}, {"a", false, 6, 2}}
	after := []lookup{{"a", false, 3, 1}, {"b", false, 5, 1}, {"c", false, 2, 1}, {"a", false, 1, 2},
		{"b", false, 4, 2}, {"c", false, 2, 2}, {"e", false, 1, 2}, {"a", false, 6, 2}}
	run := before
	if fixed {
		run = after
	}
	var out []string
	ts := int64(1796083200000)
	for i, l := range run {
		if i == 4 {
			out = append(out, fmt.Sprintf(`{"hypothesisId":"H1","location":"cache.py:30","message":"refresh","data":{"gen":2},"timestamp":%d}`, ts))
			ts++
		}
		out = append(out, fmt.Sprintf(`{"hypothesisId":"H2","location":"cache.py:41","message":"lookup","data":{"key":%q,"stale":%v,"age_ms":%d,"gen":%d},"timestamp":%d}`,
			l.key, l.stale, l.age, l.gen, ts))
		ts++
	}
	return out
}

func TestReadingEvidenceExamples(t *testing.T) {
	text, err := os.ReadFile(readingEvidence)
	if err != nil {
		t.Fatal(err)
	}
	blocks := checkedBlocks(string(text))
	if len(blocks) < 2 {
		t.Fatalf("%s has %d checked blocks; the aggregation examples and the diff are checked", readingEvidence, len(blocks))
	}

	e := NewEnv(t)
	s := e.Create()
	appendLines := func(lines []string) {
		f, err := os.OpenFile(s.AppendPath, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteString(strings.Join(lines, "\n") + "\n"); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	appendLines(cacheLookups(false))
	capture := captureID(t, e.MustRun("capture", "--session", s.SessionID, "--label", "before fix", "--source-root", t.TempDir()))
	e.MustRun("reset", "--session", s.SessionID)
	appendLines(cacheLookups(true))

	env := append(e.Environ(), "PATH="+filepath.Dir(binary)+string(os.PathListSeparator)+os.Getenv("PATH"))
	commands := 0
	for _, b := range blocks {
		for i := 0; i < len(b.lines); i++ {
			line := b.lines[i]
			if !strings.HasPrefix(line, "$ ") {
				t.Fatalf("%s:%d: expected a command line starting with \"$ \", got %q", readingEvidence, b.line+i, line)
			}
			var want []string
			for i+1 < len(b.lines) && !strings.HasPrefix(b.lines[i+1], "$ ") {
				i++
				want = append(want, b.lines[i])
			}
			command := strings.NewReplacer("<id>", s.SessionID, "<capture>", capture).Replace(line[2:])
			cmd := exec.Command("bash", "-c", command)
			cmd.Env = env
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Run(); err != nil {
				t.Errorf("%s:%d: %s: %v\n%s", readingEvidence, b.line+i, line, err, out.String())
				continue
			}
			commands++
			got := normaliseAll(strings.Split(strings.TrimRight(out.String(), "\n"), "\n"), "")
			exp := normaliseAll(want, "")
			// Unless it starts with "…", the answer's first line is the first line shown.
			if ok, first := matchExcerpt(exp, got); !ok || len(exp) > 0 && exp[0] != "…" && (len(got) == 0 || got[0] != exp[0]) {
				t.Errorf("%s:%d: %s prints (normalised):\n%s\n\nthe reference shows:\n%s\n(not matched:\n%s)",
					readingEvidence, b.line, line, strings.Join(got, "\n"), strings.Join(exp, "\n"), first)
			}
		}
	}
	if commands < 6 {
		t.Errorf("ran %d documented commands; the reference shows more", commands)
	}
	// Every way to aggregate is shown and checked: --count-by and -n for
	// any number of events, --slurp for group-bys on small cycles.
	for _, form := range []string{"--count-by .", "-n 'reduce inputs as $e", "--slurp 'group_by("} {
		if !slices.ContainsFunc(blocks, func(b transcript) bool {
			return slices.ContainsFunc(b.lines, func(l string) bool { return strings.HasPrefix(l, "$ ") && strings.Contains(l, form) })
		}) {
			t.Errorf("no checked command in %s uses %s", readingEvidence, form)
		}
	}
}

// checkedBlocks are the ```text blocks right after a "<!-- checked" line.
func checkedBlocks(text string) []transcript {
	var out []transcript
	lines := strings.Split(text, "\n")
	marker := regexp.MustCompile(`^<!-- checked\b.*-->$`)
	for i := 0; i+1 < len(lines); i++ {
		if !marker.MatchString(lines[i]) || lines[i+1] != "```text" {
			continue
		}
		b := transcript{mode: "checked", line: i + 3}
		for i += 2; i < len(lines) && lines[i] != "```"; i++ {
			b.lines = append(b.lines, lines[i])
		}
		out = append(out, b)
	}
	return out
}
