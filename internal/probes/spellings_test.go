package probes

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// markerSpellings are the ways an agent writes a start and an end marker in
// each comment syntax of the template languages (and of the file types the
// ledger scans with them: Vue and Svelte templates, PHP's HTML parts).
var markerSpellings = map[string][][2]string{
	"//": {
		{"// #region agent log", "// #endregion"},
		{"//#region agent log", "//#endregion"},
		{"// region agent log", "// endregion"},
		{"//region agent log", "//endregion"},
		{"// #region agent log H1", "// #endregion agent log"},
		{"// #Region Agent Log", "// #EndRegion"},
		{"// #REGION AGENT LOG", "// #ENDREGION"},
		{"//   #region    agent   log  ", "//   #endregion   "},
		{"/// #region agent log", "/// #endregion"},
	},
	"/* */": {
		{"/* #region agent log */", "/* #endregion */"},
		{"/*#region agent log*/", "/*#endregion*/"},
		{"/* region agent log */", "/* endregion */"},
		{"/** #region agent log H2 */", "/** #endregion agent log */"},
	},
	"#": {
		{"#region agent log", "#endregion"},
		{"# region agent log", "# endregion"},
		{"# #region agent log", "# #endregion"},
		{"## region agent log", "## endregion"},
		{"# region agent log H3", "# endregion agent log"},
		{"#Region Agent Log", "#EndRegion"},
		{"# REGION AGENT LOG", "# END REGION"},
		{"#   region   agent   log", "#   endregion"},
	},
	"#region directive": { // C#'s preprocessor
		{"#region agent log", "#endregion"},
		{"#region agent log H4", "#endregion agent log"},
		{"# region agent log", "# endregion"},
	},
	"#pragma": { // C and C++ (MSVC, clang, gcc)
		{"#pragma region agent log", "#pragma endregion"},
		{"#pragma region agent log H5", "#pragma endregion agent log"},
	},
	"<!-- -->": {
		{"<!-- #region agent log -->", "<!-- #endregion -->"},
		{"<!--#region agent log-->", "<!--#endregion-->"},
		{"<!-- region agent log H6 -->", "<!-- endregion -->"},
	},
	"<# #>": { // PowerShell's block comment
		{"<# #region agent log #>", "<# #endregion #>"},
		{"<#region agent log#>", "<#endregion#>"},
	},
}

// misspelt are lines that mention the marker in a comment without being
// one, per comment syntax: each must be reported broken, never ignored.
var misspelt = map[string][]string{
	"//":                {"probe() // #region agent log", "// #region: agent log", "// #regionagent log", "//#region agentlog"},
	"/* */":             {"/* #region: agent log */", "probe() /* #region agent log */"},
	"#":                 {"probe()  # region agent log", "# region: agent log", "# #region agentlog"},
	"#region directive": {"#region: agent log", "#regionagent log"},
	"#pragma":           {"#pragma region: agent log"},
	"<!-- -->":          {"<p></p><!-- #region agent log -->", "<!-- #region: agent log -->"},
	"<# #>":             {"<# #region: agent log #>"},
}

// spellingLanguages are the 14 template languages (plus the Vue and Svelte
// file types) with an extension and the comment syntaxes their files use.
var spellingLanguages = []struct {
	name, ext string
	syntaxes  []string
}{
	{"c", ".c", []string{"//", "/* */", "#pragma"}},
	{"cpp", ".cpp", []string{"//", "/* */", "#pragma"}},
	{"csharp", ".cs", []string{"//", "/* */", "#region directive"}},
	{"go", ".go", []string{"//", "/* */"}},
	{"java", ".java", []string{"//", "/* */"}},
	{"javascript", ".js", []string{"//", "/* */"}},
	{"javascript-vue", ".vue", []string{"//", "/* */", "<!-- -->"}},
	{"kotlin", ".kt", []string{"//", "/* */"}},
	{"php", ".php", []string{"//", "#", "/* */", "<!-- -->"}},
	{"powershell", ".ps1", []string{"#", "<# #>"}},
	{"python", ".py", []string{"#"}},
	{"ruby", ".rb", []string{"#"}},
	{"rust", ".rs", []string{"//", "/* */"}},
	{"swift", ".swift", []string{"//", "/* */"}},
	{"typescript", ".ts", []string{"//", "/* */"}},
	{"typescript-svelte", ".svelte", []string{"//", "/* */", "<!-- -->"}},
}

var labelRE = regexp.MustCompile(`\bH\d\b`)

// TestMarkerSpellings: every spelling in every comment syntax of every
// language is a region the ledger lists (with its label), an unclosed one is
// reported broken, and --remove takes out exactly the region's lines.
func TestMarkerSpellings(t *testing.T) {
	for _, lang := range spellingLanguages {
		for _, syntax := range lang.syntaxes {
			for i, sp := range markerSpellings[syntax] {
				t.Run(fmt.Sprintf("%s/%s/%d", lang.name, syntax, i), func(t *testing.T) {
					start, end := sp[0], sp[1]
					const before, after = "before()\n", "after()\n"
					src := before + "    " + start + "\n    probe()\n    " + end + "\n" + after
					dir := t.TempDir()
					file := "probe" + lang.ext
					writeTree(t, dir, map[string]string{file: src})

					rep, err := Scan(Options{Dir: dir})
					if err != nil {
						t.Fatal(err)
					}
					if len(rep.Regions) != 1 || len(rep.Broken) != 0 {
						t.Fatalf("%q … %q: %d regions, broken %+v; want one region", start, end, len(rep.Regions), rep.Broken)
					}
					r := rep.Regions[0]
					if r.StartLine != 2 || r.EndLine != 4 || r.FirstCode != "probe()" {
						t.Errorf("region %d-%d %q, want 2-4 \"probe()\"", r.StartLine, r.EndLine, r.FirstCode)
					}
					if want := labelRE.FindString(start); r.Label != want {
						t.Errorf("label %q, want %q", r.Label, want)
					}

					rm, err := Remove(rep, RemoveOptions{Apply: true})
					if err != nil {
						t.Fatal(err)
					}
					if rm.Regions != 1 || rm.Refused != 0 {
						t.Fatalf("removal %+v", rm)
					}
					got, err := os.ReadFile(filepath.Join(dir, file))
					if err != nil {
						t.Fatal(err)
					}
					if string(got) != before+after {
						t.Errorf("after removal:\n%s\nwant:\n%s", got, before+after)
					}

					// Without its end marker, the start is reported, not lost.
					_, faults := parse([]byte(before + start + "\nprobe()\n" + after))
					if len(faults) != 1 || faults[0].kind != BrokenUnclosed || faults[0].line != 2 {
						t.Errorf("unclosed %q: faults %+v, want unclosed at line 2", start, faults)
					}
					// An end marker alone is reported too.
					_, faults = parse([]byte(before + end + "\n" + after))
					if len(faults) != 1 || faults[0].kind != BrokenUnopened {
						t.Errorf("lone %q: faults %+v, want unopened", end, faults)
					}
				})
			}
		}
	}
}

// TestMisspeltMarkers: a comment that mentions "region agent log" but is no
// marker is broken, so --check fails on it and --remove leaves the file alone.
func TestMisspeltMarkers(t *testing.T) {
	for _, lang := range spellingLanguages {
		for _, syntax := range lang.syntaxes {
			for i, line := range misspelt[syntax] {
				t.Run(fmt.Sprintf("%s/%s/%d", lang.name, syntax, i), func(t *testing.T) {
					end := markerSpellings[syntax][0][1]
					src := "before()\n" + line + "\nprobe()\n" + end + "\n"
					dir := t.TempDir()
					file := "probe" + lang.ext
					writeTree(t, dir, map[string]string{file: src})
					rep, err := Scan(Options{Dir: dir})
					if err != nil {
						t.Fatal(err)
					}
					var kinds []string
					for _, b := range rep.Broken {
						kinds = append(kinds, fmt.Sprintf("%d:%s", b.Line, b.Kind))
					}
					if got := strings.Join(kinds, " "); got != "2:misspelt 4:unopened" || rep.Clean() {
						t.Fatalf("%q: broken %q, want \"2:misspelt 4:unopened\"", line, got)
					}
					if !strings.Contains(rep.Broken[0].Message, "region agent log") {
						t.Errorf("message %q does not say what it found", rep.Broken[0].Message)
					}
					rm, err := Remove(rep, RemoveOptions{Apply: true})
					if err != nil {
						t.Fatal(err)
					}
					got, _ := os.ReadFile(filepath.Join(dir, file))
					if rm.Refused != 1 || string(got) != src {
						t.Errorf("removal %+v changed the file to %q", rm, got)
					}
				})
			}
		}
	}
}
