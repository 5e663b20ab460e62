// Package templates holds the probe helper and call templates for every
// supported language and transport: small, standard-library-only sources an
// agent pastes into the program it debugs.
//
// Where a language can load code from an absolute path at run time (Python,
// Ruby, PHP, JavaScript and TypeScript on Node), the helper is not pasted at
// all: debug-mode keeps it in the state directory (OutsideHelpers:
// helpers/<content hash>/<file>, written by create and template, the same
// for every session) and the template's Import is the one guarded region
// each instrumented file carries, naming the helper by absolute path
// (__HELPER_PATH__, see Place) and binding the session's endpoint and cap.
// A language whose helper must stay in the project (a browser, a compiled
// language) keeps Helper, pasted or saved as Placement.HelperFile
// (own-file); a module's Import is then the line other files use to reach it.
//
// Every helper:
//
//   - fills location from the caller's file and line, sending an absolute
//     path or what the runtime or compiler gives (a file:// or page URL,
//     __FILE__ relative to the build folder, a package path): the service
//     makes it relative to the session's project root in one place
//     (internal/projectroot, applied at ingest), so helpers never compute
//     relative paths. Its call template has no __LOCATION__ (the render lists
//     only placeholders present, and the e2e test then also checks the exact
//     line after lines are added above the probes); an explicit location is
//     an optional last argument. Remember what the runtime lets you per call
//     site, so a call costs microseconds.
//   - reads AGENT_DEBUG_MODE_APPEND_PATH (AGENT_DEBUG_MODE_INGEST_URL for
//     http) and AGENT_DEBUG_MODE_MAX_PER_LOCATION when set (reproduce sets
//     them), else the values the template bound (__APPEND_PATH__ or
//     __INGEST_URL__ through Fill, __MAX_PER_LOCATION__ through SetCap);
//     where a process binds more than once, the first binding wins.
//   - serializes and queues each event in memory, never taking a lock the
//     program holds or making a system call in the call, and delivers
//     batches from the background (one write or request per batch), flushed
//     at exit and, where the runtime allows, on SIGTERM when the program has
//     no handler of its own.
//   - after the cap of events per location per process stops sending that
//     location and reports what it held back on the same transport, when
//     the cap is first reached and again from the background (and at exit)
//     whenever the count grew, so a killed program has reported it too:
//     {"agentDebugHeldBack":{"hypothesisId":"H1","location":"<location>",
//     "count":<held back so far>,"cap":<cap>,"process":"<pid>-<start ms>"}}
//     (a running total: the store keeps each process's largest).
//   - marks its own region (the import, or a helper module) "agent log
//     helper" (probes.HelperLabel), so probes --session never reports it as
//     a region that never fired; probes --remove --yes deletes a file left
//     with nothing but it.
//   - stays within 80 lines (TestHelpersWithinBudget) and is proven live in
//     e2e/templates_*_test.go (the compiled ones' cap and background writer
//     also in e2e/helpers_compiled_test.go).
//
// A compiled helper keys each call site by what the language gives for
// free (Go: the data closure's code pointer; Java and Kotlin: the lambda's
// class; C#: the caller's file string and line; Rust and C: a static per
// macro expansion; C++: a static per lambda type), so a call past the cap
// is a lookup and an atomic add. Where a helper names its package (Go,
// Java), __PACKAGE_NAME__ is filled in by FillPackage.
package templates

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

//go:embed langs
var files embed.FS

// Data encodings: how a call site supplies the data field.
const (
	NativeJSON     = "native-json-value" // a native value the helper serializes
	SerializedJSON = "serialized-json"   // an expression that already is one JSON text
)

// Placement says where the helper and calls may legally go.
type Placement struct {
	Helper     string `json:"helper"`               // file-start, top-level, own-file (HelperFile) or outside-project (the template's helperPath)
	HelperFile string `json:"helperFile,omitempty"` // own-file: the name to save the helper as
	Call       string `json:"call"`                 // statement
}

// Helper placements.
const (
	OutsideProject = "outside-project" // debug-mode keeps the helper; each file pastes Import
	OwnFile        = "own-file"        // only a file of its own works: Placement.HelperFile
)

// Regions are the foldable markers around each inserted piece.
type Regions struct {
	Start string `json:"start"`
	End   string `json:"end"`
}

// Placeholder is a name in a template and what replaces it.
type Placeholder struct {
	Name    string `json:"name"`
	Meaning string `json:"meaning"`
}

// Template is one language + transport combination, rendered.
type Template struct {
	Language     string    `json:"language"`
	DisplayName  string    `json:"displayName"`
	Ingest       string    `json:"ingest"`
	DataEncoding string    `json:"dataEncoding"`
	Placement    Placement `json:"placement"`
	Regions      Regions   `json:"regionMarkers"`
	Helper       string    `json:"helper"`               // source to paste or save in the project; "" when it lives outside it
	HelperPath   string    `json:"helperPath,omitempty"` // outside-project: the helper debug-mode keeps (see Place)
	// HelperWritten is where --for saved an own-file helper (WriteHelper): nothing to paste.
	HelperWritten string `json:"helperWritten,omitempty"`
	// PackageFrom is the folder whose package was read into the helper
	// (the working directory, or --dir), said above the helper text.
	PackageFrom  string        `json:"-"`
	Import       string        `json:"import,omitempty"` // the region each instrumented file pastes once to reach the helper
	Call         string        `json:"call"`
	Placeholders []Placeholder `json:"placeholders"`
	Notes        []string      `json:"notes"`
	VerifiedLive bool          `json:"verifiedLive"`
}

// language is one registry entry.
type language struct {
	id, display, ext, comment string
	aliases                   []string
	ingests                   []string
	encoding                  string
	helperPlacement           string
	helperFile                string // with helperPlacement own-file
	verifiedLive              bool
	notes                     []string
	ingestNotes               map[string][]string // notes for one transport only, after the shared ones
	extraPlaceholders         []Placeholder       // beyond the standard five, e.g. a package name
	regions                   *Regions            // markers other than the ones derived from comment (e.g. PowerShell's #region)
	outside                   map[string]outside  // per transport: the helper lives in the state directory
	moduleFile                map[string]string   // per transport: the helper is a module of its own (own-file) with this name
}

// outside names a helper kept outside the project: its file name in the
// state directory and, when another language's source is shared (TypeScript
// runs JavaScript's on Node), that language.
type outside struct{ file, from string }

// OutsideHelper is one helper debug-mode keeps in the state directory.
type OutsideHelper struct {
	Rel    string // path under the state root: helpers/<hash>/<file>
	Source []byte
}

// OutsideHelpers lists every helper kept outside the project, once each.
func OutsideHelpers() []OutsideHelper {
	seen := map[string]bool{}
	var out []OutsideHelper
	for _, l := range registry {
		for _, in := range l.ingests {
			if h, ok := l.outsideHelper(in); ok && !seen[h.Rel] {
				seen[h.Rel] = true
				out = append(out, h)
			}
		}
	}
	return out
}

// outsideHelper reads the source of a transport's outside helper.
func (l language) outsideHelper(ingest string) (OutsideHelper, bool) {
	o, ok := l.outside[ingest]
	if !ok {
		return OutsideHelper{}, false
	}
	from := l
	if o.from != "" {
		for _, x := range registry {
			if x.id == o.from {
				from = x
			}
		}
	}
	src, err := files.ReadFile("langs/" + from.id + "/" + ingest + ".helper." + from.ext)
	if err != nil {
		panic(err) // the embedded tree is part of the binary; a missing file is a build error
	}
	sum := sha256.Sum256(src)
	return OutsideHelper{Rel: "helpers/" + hex.EncodeToString(sum[:6]) + "/" + o.file, Source: src}, true
}

// registry lists every language; each lang_<id>.go file registers its own.
var registry []language

func register(l language) { registry = append(registry, l) }

// Combination is one supported language + ingest pair.
type Combination struct {
	Language     string `json:"language"`
	Ingest       string `json:"ingest"`
	VerifiedLive bool   `json:"verifiedLive"`
}

// Combinations lists every supported pair, sorted by language.
func Combinations() []Combination {
	var out []Combination
	for _, l := range registry {
		for _, in := range l.ingests {
			out = append(out, Combination{l.id, in, l.verifiedLive})
		}
	}
	// Stable: a language's transports keep their registered order (the first is the one completion suggests).
	sort.SliceStable(out, func(i, j int) bool { return out[i].Language < out[j].Language })
	return out
}

// SupportedText lists the combinations for error messages and help.
func SupportedText() string {
	var parts []string
	for _, c := range Combinations() {
		s := c.Language + " + " + c.Ingest
		if !c.VerifiedLive {
			s += " (not yet verified live)"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}

// Lookup renders the template for a language (or alias) and transport.
func Lookup(lang, ingest string) (*Template, error) {
	key := strings.ToLower(strings.TrimSpace(lang))
	for _, l := range registry {
		if key != l.id && !contains(l.aliases, key) {
			continue
		}
		if !contains(l.ingests, ingest) {
			return nil, fmt.Errorf("%s has no %q ingest; supported combinations: %s", l.display, ingest, SupportedText())
		}
		return l.render(ingest)
	}
	return nil, fmt.Errorf("no template for language %q; supported combinations: %s", lang, SupportedText())
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (l language) render(ingest string) (*Template, error) {
	read := func(part string) (string, error) {
		b, err := files.ReadFile("langs/" + l.id + "/" + ingest + "." + part + "." + l.ext)
		return string(b), err
	}
	call, err := read("call")
	if err != nil {
		return nil, err
	}
	t := &Template{
		Language: l.id, DisplayName: l.display, Ingest: ingest, DataEncoding: l.encoding,
		Placement:    Placement{Helper: l.helperPlacement, HelperFile: l.helperFile, Call: "statement"},
		Regions:      Regions{Start: l.comment + " #region agent log", End: l.comment + " #endregion"},
		Call:         call,
		Notes:        append(append([]string{}, l.notes...), l.ingestNotes[ingest]...),
		VerifiedLive: l.verifiedLive,
	}
	if _, ok := l.outside[ingest]; ok {
		t.Placement.Helper, t.HelperPath = OutsideProject, "__HELPER_PATH__"
		if t.Import, err = read("import"); err != nil {
			return nil, err
		}
	} else {
		if t.Helper, err = read("helper"); err != nil {
			return nil, err
		}
		if f := l.moduleFile[ingest]; f != "" {
			t.Placement.Helper, t.Placement.HelperFile = OwnFile, f
			if t.Import, err = read("import"); err != nil {
				return nil, err
			}
		}
	}
	if l.comment == "#" {
		t.Regions = Regions{Start: "# region agent log", End: "# endregion"}
	}
	if l.regions != nil {
		t.Regions = *l.regions
	}
	endpoint := Placeholder{"__APPEND_PATH__", "the Append Path printed by debug-mode create or reset"}
	if ingest == "http" {
		endpoint = Placeholder{"__INGEST_URL__", "the Ingest URL printed by debug-mode create or reset"}
	}
	data := Placeholder{"__DATA_EXPRESSION__", "a native value with the changing values that test the hypothesis (a map/object, list, string, number, boolean or null); never secrets"}
	if l.encoding == SerializedJSON {
		data = Placeholder{"__DATA_JSON_EXPRESSION__", "an expression that evaluates to one complete JSON text, e.g. built with your JSON library or the helper's json_string fallback; never concatenate unescaped strings"}
	}
	all := append([]Placeholder{
		endpoint,
		{"__HYPOTHESIS_ID__", "your label for the hypothesis this probe tests, e.g. H1"},
		{"__LOCATION__", "this probe's path:line, e.g. src/cart.py:42"},
		{"__MESSAGE__", "a constant description of what is observed here"},
		data,
	}, l.extraPlaceholders...)
	text := t.Helper + t.Import + t.Call
	t.Placeholders = []Placeholder{}
	for _, p := range all {
		if strings.Contains(text, p.Name) { // a helper that names its caller's location has no __LOCATION__
			t.Placeholders = append(t.Placeholders, p)
		}
	}
	if !strings.Contains(text, endpoint.Name) {
		return nil, fmt.Errorf("template %s/%s lacks %s", l.id, ingest, endpoint.Name)
	}
	return t, nil
}

// Place fills in where the state root keeps an outside-project helper:
// HelperPath and the path in Import become stateRoot/helpers/<hash>/<file>.
func (t *Template) Place(stateRoot string) {
	for _, l := range registry {
		if l.id != t.Language {
			continue
		}
		if h, ok := l.outsideHelper(t.Ingest); ok {
			t.HelperPath = strings.TrimSuffix(stateRoot, "/") + "/" + h.Rel
			t.Import = strings.ReplaceAll(t.Import, "__HELPER_PATH__", t.HelperPath)
		}
	}
}

// Fill replaces the endpoint placeholder with a session's value.
func (t *Template) Fill(ingestURL, appendPath string) {
	r := strings.NewReplacer("__INGEST_URL__", ingestURL, "__APPEND_PATH__", appendPath)
	t.Helper, t.Import, t.Call = r.Replace(t.Helper), r.Replace(t.Import), r.Replace(t.Call)
}

// SetCap writes the cap of events per location per process (the session's,
// or sessionenv.DefaultMaxPerLocation) where a helper binds it; the
// environment's AGENT_DEBUG_MODE_MAX_PER_LOCATION still wins at run time.
func (t *Template) SetCap(n int64) {
	c := strconv.FormatInt(n, 10)
	t.Helper, t.Import = strings.ReplaceAll(t.Helper, "__MAX_PER_LOCATION__", c), strings.ReplaceAll(t.Import, "__MAX_PER_LOCATION__", c)
}
