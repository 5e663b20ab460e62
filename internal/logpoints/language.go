package logpoints

import (
	"context"
	"io/fs"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// Language is one runtime logpoints work in. Each registers itself from an
// init function in a file of its own (python.go, node.go):
//
//	func init() { Register(Language{ID: "javascript", Name: "JavaScript", Extensions: …, Check: …, Hook: …, Inject: …}) }
type Language struct {
	ID         string   // stored in each logpoint; the hook's own files go under hooks/<hash>/<ID>/
	Name       string   // for people: "Python"
	Extensions []string // lower-case, with the dot: ".py"
	// Check decides, when a logpoint is added, whether the line can take
	// one and whether the data expression is valid, exactly as the hook
	// will decide at run time. hookDir is where this language's hook files
	// are installed (a check may run the runtime with them).
	Check func(ctx context.Context, hookDir string, req CheckRequest) CheckResult
	// Hook is the language's start-up hook: every file in it is written
	// under hooks/<hash>/<ID>/ in the state root.
	Hook fs.FS
	// Inject adds the hook to a command's environment (PYTHONPATH for
	// Python, NODE_OPTIONS for Node.js), keeping what the user set, and
	// replacing (Environ.IsHookPath) what an earlier injection of any build
	// added. Node reads NODE_OPTIONS like a shell: quote the path
	// (--require "<dir>/hook.cjs") in case it holds a space.
	Inject func(env *Environ, hookDir string)
}

// CheckRequest is one logpoint to check.
type CheckRequest struct {
	File string // absolute
	Line int
	Data string // may be empty
}

// CheckResult is a check's verdict.
type CheckResult struct {
	OK bool
	// Reason is why the line cannot take a logpoint, one sentence naming
	// the line to use instead where there is one.
	Reason string
	// Placement notes where the logpoint runs when that is not simply
	// "before the statement on this line".
	Placement string
	// Unchecked is set when the runtime needed for an exact check is not
	// installed: the logpoint is kept, and the hook reports at run time.
	Unchecked string
}

var languages []Language

// Register adds a language. It panics on a duplicate ID or extension (a
// programming error).
func Register(l Language) {
	for _, o := range languages {
		if o.ID == l.ID {
			panic("logpoints: language " + l.ID + " registered twice")
		}
		for _, e := range l.Extensions {
			if slices.Contains(o.Extensions, e) {
				panic("logpoints: extension " + e + " registered twice")
			}
		}
	}
	languages = append(languages, l)
	sort.Slice(languages, func(i, j int) bool { return languages[i].ID < languages[j].ID })
}

// Languages lists the registered languages, by ID.
func Languages() []Language { return slices.Clone(languages) }

// Lookup returns the language with that ID, or nil.
func Lookup(id string) *Language {
	for i := range languages {
		if languages[i].ID == id {
			return &languages[i]
		}
	}
	return nil
}

// ForPath returns the language of a file by its extension, or nil.
func ForPath(path string) *Language {
	ext := strings.ToLower(filepath.Ext(path))
	for i := range languages {
		if slices.Contains(languages[i].Extensions, ext) {
			return &languages[i]
		}
	}
	return nil
}

// Supported names the files logpoints work in, for error messages:
// "Python (.py)".
func Supported() string {
	var parts []string
	for _, l := range languages {
		parts = append(parts, l.Name+" ("+strings.Join(l.Extensions, " ")+")")
	}
	if len(parts) == 0 {
		return "no language (this build has none)"
	}
	return strings.Join(parts, ", ")
}
