package cli

import (
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/agentic-debug-mode/debug-mode/internal/evidence"
	"github.com/agentic-debug-mode/debug-mode/internal/skill"
	"github.com/agentic-debug-mode/debug-mode/internal/templates"
)

// The Agent Skill's contract: it must stay true to the CLI it teaches.

func skillFiles(t *testing.T) []skill.File {
	t.Helper()
	files, err := skill.Files()
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 || files[0].Path != skill.Main {
		t.Fatalf("the skill has no %s", skill.Main)
	}
	return files
}

func TestSkillFrontMatter(t *testing.T) {
	main := skillFiles(t)[0]
	meta, body, err := skill.ParseFrontMatter(main.Data)
	if err != nil {
		t.Fatal(err)
	}
	if meta.Name != skill.Name {
		t.Errorf("front matter name %q, want the folder's name %q", meta.Name, skill.Name)
	}
	for _, want := range []string{"runtime evidence", "Use it when"} {
		if !strings.Contains(meta.Description, want) {
			t.Errorf("the description should say what it does and when to use it; it lacks %q", want)
		}
	}
	// Small enough to load whole, and no longer than it is: 2,371 words
	// and 237 lines when reproduce became the round, logpoints included
	// (2,477 and 254 before).
	// About 1.3 tokens a word: some 3,100 tokens. Move detail to references/.
	if words := len(strings.Fields(string(main.Data))); words > 2400 {
		t.Errorf("SKILL.md is %d words (about %d tokens); keep it at 2,400 at most and move detail to references/", words, words*13/10)
	}
	if lines := strings.Count(string(main.Data), "\n"); lines > 240 {
		t.Errorf("SKILL.md is %d lines; keep it at 240 at most and move detail to references/", lines)
	}
	// Every reference exists and is named in SKILL.md.
	for _, f := range skillFiles(t)[1:] {
		if !strings.Contains(body, "`"+f.Path+"`") {
			t.Errorf("SKILL.md never points to %s", f.Path)
		}
	}
	for _, m := range regexp.MustCompile("`(references/[^`]+)`").FindAllStringSubmatch(body, -1) {
		if _, err := skill.Read(m[1]); err != nil {
			t.Errorf("SKILL.md points to %s, which does not exist", m[1])
		}
	}
}

// TestSkillDefinesTermsFirst: each term is defined (in a "- **Term**:" line)
// before the body uses it anywhere else.
func TestSkillDefinesTermsFirst(t *testing.T) {
	_, body, err := skill.ParseFrontMatter(skillFiles(t)[0].Data)
	if err != nil {
		t.Fatal(err)
	}
	for _, term := range []string{"session", "hypothesis label", "probe", "helper template", "call template", "Ingest URL", "Append Path", "agent log region", "cycle", "user evidence"} {
		re := regexp.MustCompile(`(?i)\b` + regexp.QuoteMeta(term) + `\b`)
		loc := re.FindStringIndex(body)
		if loc == nil {
			t.Errorf("the skill never uses %q", term)
			continue
		}
		lineStart := strings.LastIndex(body[:loc[0]], "\n") + 1
		line := body[lineStart:]
		line = line[:strings.IndexByte(line, '\n')]
		if !strings.HasPrefix(strings.ToLower(line), "- **"+strings.ToLower(term)+"**") {
			t.Errorf("%q is used before it is defined, first in: %s", term, line)
		}
	}
}

// TestSkillForbiddenTerms: the skill speaks of sessions, probes and evidence,
// never of how debug-mode works inside, and never of its JSON output.
func TestSkillForbiddenTerms(t *testing.T) {
	forbidden := []string{`daemon`, `services?`, `process(es)?`, `ports?`, `pids?`, `locks?`, `lockfiles?`,
		`state files?`, `state dir(ectory)?`, `loopback`, `localhost`, `127\.0\.0\.1`, `data\.instrumentation`}
	literal := []string{".ndjson", "~/.agent-debug-mode", ".agent-debug-mode", "AGENT_DEBUG_MODE", "--json"}
	for _, f := range skillFiles(t) {
		text := collectorKeys.ReplaceAllString(string(f.Data), "")
		for _, w := range forbidden {
			if m := regexp.MustCompile(`(?i)\b` + w + `\b`).FindString(text); m != "" {
				t.Errorf("%s mentions %q", f.Path, m)
			}
		}
		for _, s := range literal {
			if strings.Contains(text, s) {
				t.Errorf("%s mentions %q", f.Path, s)
			}
		}
	}
}

// collectorKeys are the lines of an OpenTelemetry Collector configuration
// (a YAML block in references/otlp.md) whose key is the Collector's own
// word "service", not debug-mode's.
var collectorKeys = regexp.MustCompile(`(?m)^service:$`)

// TestSkillEventSchema: the schema tables are exactly what the code
// validates, and every example event in the skill is accepted as it is.
func TestSkillEventSchema(t *testing.T) {
	body := string(skillFiles(t)[0].Data)
	tables := schemaTables(body)
	if len(tables) < 2 {
		t.Fatalf("SKILL.md should hold two schema tables (probe event, stored fields); found %d", len(tables))
	}
	for i, want := range [][]evidence.SchemaField{evidence.ProbeSchema, evidence.StoredSchema} {
		got := tables[i]
		if len(got) != len(want) {
			t.Errorf("schema table %d has %d rows, the code has %d", i+1, len(got), len(want))
			continue
		}
		for j := range want {
			if got[j] != want[j] {
				t.Errorf("schema table %d row %d:\n got  %+v\n want %+v", i+1, j+1, got[j], want[j])
			}
		}
	}
	if !strings.Contains(body, "Unix epoch milliseconds") {
		t.Error("SKILL.md does not give the timestamp unit")
	}
	examples := 0
	for _, f := range skillFiles(t) {
		for _, m := range regexp.MustCompile(`\{"hypothesisId":[^\n`+"`"+`]*\}`).FindAllString(string(f.Data), -1) {
			examples++
			rec, rej := evidence.Normalize([]byte(m), evidence.DefaultLimits)
			if rej != nil {
				t.Errorf("%s: example event %s is refused: %s", f.Path, m, rej.Reason)
			} else if len(rec.Dropped) > 0 {
				t.Errorf("%s: example event %s has fields that are dropped: %v", f.Path, m, rec.Dropped)
			}
		}
	}
	if examples == 0 {
		t.Error("the skill shows no example event")
	}
}

// schemaTables reads every markdown table whose header is "field | type |
// meaning", as schema fields.
func schemaTables(text string) [][]evidence.SchemaField {
	var out [][]evidence.SchemaField
	var cur []evidence.SchemaField
	in := false
	for _, line := range strings.Split(text, "\n") {
		cells := tableCells(line)
		switch {
		case len(cells) == 3 && cells[0] == "field" && cells[1] == "type" && cells[2] == "meaning":
			in, cur = true, nil
		case in && len(cells) == 3 && strings.Trim(cells[0], "-") == "":
		case in && len(cells) == 3:
			cur = append(cur, evidence.SchemaField{Name: strings.Trim(cells[0], "`"), Type: cells[1], Meaning: cells[2]})
		case in:
			out, in = append(out, cur), false
		}
	}
	if in {
		out = append(out, cur)
	}
	return out
}

func tableCells(line string) []string {
	line = strings.TrimSpace(line)
	if !strings.HasPrefix(line, "|") || !strings.HasSuffix(line, "|") || len(line) < 2 {
		return nil
	}
	cells := strings.Split(line[1:len(line)-1], "|")
	for i := range cells {
		cells[i] = strings.TrimSpace(cells[i])
	}
	return cells
}

// TestSkillCommandsExist: every `debug-mode …` the skill shows in code names
// a real command, real flags, and real flag values.
func TestSkillCommandsExist(t *testing.T) {
	root := newRootCmd(&env{out: io.Discard, err: io.Discard})
	mentions := 0
	for _, f := range skillFiles(t) {
		for _, code := range codeTexts(string(f.Data)) {
			for _, words := range commandMentions(code) {
				mentions++
				if err := checkMention(root, words); err != "" {
					t.Errorf("%s: `debug-mode %s`: %s", f.Path, strings.Join(words, " "), err)
				}
			}
		}
	}
	if mentions < 20 {
		t.Errorf("found only %d command mentions; is the parser still reading the skill?", mentions)
	}
}

// codeTexts returns the fenced code blocks' lines and the inline code spans.
func codeTexts(text string) []string {
	var out []string
	fenced := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			out = append(out, line)
			continue
		}
		for _, m := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(line, -1) {
			out = append(out, m[1])
		}
	}
	return out
}

var mentionRE = regexp.MustCompile(`(?:^|[\s(])debug-mode(?:\s|$)`)

// commandMentions splits a code text into the words after each debug-mode,
// up to a shell operator or the next debug-mode.
func commandMentions(code string) [][]string {
	var out [][]string
	locs := mentionRE.FindAllStringIndex(code, -1)
	for i, l := range locs {
		end := len(code)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		var words []string
		for _, w := range shellSplit(code[l[1]:end]) {
			if w == ">" || w == "|" || w == "#" || w == "&&" || w == ";" || strings.HasPrefix(w, ">") {
				break
			}
			words = append(words, w)
		}
		out = append(out, words)
	}
	return out
}

// shellSplit splits on spaces, keeping single- and double-quoted words whole.
func shellSplit(s string) []string {
	var words []string
	var cur strings.Builder
	var quote rune
	inWord := false
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}

// checkMention walks the cobra tree along words; it returns what is wrong.
func checkMention(root *cobra.Command, words []string) string {
	cmd := root
	descending := true
	values := map[string]string{}
words:
	for i := 0; i < len(words); i++ {
		w := words[i]
		switch {
		case w == "--": // what follows is the command reproduce runs
			break words
		case w == "..." || w == "…" || strings.HasPrefix(w, "<") || strings.HasPrefix(w, "["):
			descending = false
		case w == "--help" || w == "-h": // cobra adds it to every command when run
		case w == "--": // the end of the flags: the rest is the reproduction's own command line
			i = len(words)
		case strings.HasPrefix(w, "--"):
			name, value, hasValue := strings.Cut(strings.TrimPrefix(w, "--"), "=")
			fl := cmd.Flag(name)
			if fl == nil {
				return "no flag --" + name + " on debug-mode " + strings.TrimPrefix(cmd.CommandPath(), "debug-mode ")
			}
			if fl.Value.Type() != "bool" && !hasValue && i+1 < len(words) {
				i++
				value = words[i]
			}
			values[name] = value
		case strings.HasPrefix(w, "-"):
			if cmd.Flags().ShorthandLookup(strings.TrimPrefix(w, "-")) == nil {
				return "no flag " + w
			}
		case descending:
			next := findChild(cmd, w)
			if next == nil {
				if cmd == root {
					return w + " is not a command"
				}
				descending = false // an argument
				continue
			}
			cmd = next
		}
	}
	if cmd == root && len(words) > 0 {
		return "names no command"
	}
	if cmd.Name() == "template" {
		lang, ingest := values["language"], values["ingest"]
		if lang != "" && !strings.HasPrefix(lang, "<") && ingest != "" && !strings.HasPrefix(ingest, "<") {
			if _, err := templates.Lookup(lang, ingest); err != nil {
				return err.Error()
			}
		}
		if s, ok := values["section"]; ok && s != "helper" && s != "import" && s != "call" && s != "all" {
			return "--section " + s + " is not a section"
		}
	}
	return ""
}

func findChild(cmd *cobra.Command, name string) *cobra.Command {
	for _, c := range cmd.Commands() {
		if c.Name() == name && !c.Hidden {
			return c
		}
	}
	return nil
}

// TestSkillCommandParser proves the checker catches what it is for.
func TestSkillCommandParser(t *testing.T) {
	root := newRootCmd(&env{out: io.Discard, err: io.Discard})
	for _, c := range []struct {
		code string
		bad  bool
	}{
		{"debug-mode logs --session <id> --hypothesis H1", false},
		{"debug-mode query --session <id> --slurp 'map(.data) | length'", false},
		{"debug-mode evidence add --session <id> --note \"a b\"", false},
		{"debug-mode probes --remove --yes src tests", false},
		{"debug-mode template --language python --ingest file --section helper --session <id> > x.py", false},
		{"debug-mode reproduce --session <id> --capture before-fix -- python3 report.py --bogus", false},
		{"debug-mode reproduce --session <id> --capture-as x -- python3 report.py", true},
		{"debug-mode logs --sesion <id>", true},
		{"debug-mode run begin", true},
		{"debug-mode logs --follow", true},
		{"debug-mode template --language cobol --ingest file", true},
		{"debug-mode template --language python --ingest file --section body", true},
		{"debug-mode evidence add --session <id> --attach x", true},
	} {
		ms := commandMentions(c.code)
		if len(ms) != 1 {
			t.Fatalf("%q: %d mentions", c.code, len(ms))
		}
		if got := checkMention(root, ms[0]) != ""; got != c.bad {
			t.Errorf("%q: flagged %v, want %v (%s)", c.code, got, c.bad, checkMention(root, ms[0]))
		}
	}
}
