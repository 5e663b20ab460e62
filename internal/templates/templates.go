// Package templates holds the probe helper and call templates for every
// supported language and transport: small, standard-library-only sources an
// agent pastes into the program it debugs.
package templates

import (
	"embed"
	"fmt"
	"sort"
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
	Helper     string `json:"helper"`               // file-start, top-level, or own-file (only a file of its own compiles)
	HelperFile string `json:"helperFile,omitempty"` // own-file: the name to save the helper as
	Call       string `json:"call"`                 // statement
}

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
	Language     string        `json:"language"`
	DisplayName  string        `json:"displayName"`
	Ingest       string        `json:"ingest"`
	DataEncoding string        `json:"dataEncoding"`
	Placement    Placement     `json:"placement"`
	Regions      Regions       `json:"regionMarkers"`
	Helper       string        `json:"helper"`
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
	helper, err := read("helper")
	if err != nil {
		return nil, err
	}
	call, err := read("call")
	if err != nil {
		return nil, err
	}
	t := &Template{
		Language: l.id, DisplayName: l.display, Ingest: ingest, DataEncoding: l.encoding,
		Placement:    Placement{Helper: l.helperPlacement, HelperFile: l.helperFile, Call: "statement"},
		Regions:      Regions{Start: l.comment + " #region agent log", End: l.comment + " #endregion"},
		Helper:       helper,
		Call:         call,
		Notes:        append(append([]string{}, l.notes...), l.ingestNotes[ingest]...),
		VerifiedLive: l.verifiedLive,
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
	t.Placeholders = []Placeholder{
		endpoint,
		{"__HYPOTHESIS_ID__", "your label for the hypothesis this probe tests, e.g. H1"},
		{"__LOCATION__", "this probe's path:line, e.g. src/cart.py:42"},
		{"__MESSAGE__", "a constant description of what is observed here"},
		data,
	}
	t.Placeholders = append(t.Placeholders, l.extraPlaceholders...)
	if !strings.Contains(helper, endpoint.Name) && !strings.Contains(call, endpoint.Name) {
		return nil, fmt.Errorf("template %s/%s lacks %s", l.id, ingest, endpoint.Name)
	}
	return t, nil
}

// Fill replaces the endpoint placeholder with a session's value.
func (t *Template) Fill(ingestURL, appendPath string) {
	r := strings.NewReplacer("__INGEST_URL__", ingestURL, "__APPEND_PATH__", appendPath)
	t.Helper, t.Call = r.Replace(t.Helper), r.Replace(t.Call)
}
