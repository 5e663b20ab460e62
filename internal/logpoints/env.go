package logpoints

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentic-debug-mode/debug-mode/internal/sessionenv"
)

// Environ is an environment being built: KEY=VALUE entries in order, as
// os.Environ gives them.
type Environ struct {
	entries []string
	hooks   string   // the hooks folder of every build: <state root>/hooks
	set     []string // keys set through Set, first time first
}

// Get returns the value of key, if set.
func (e *Environ) Get(key string) (string, bool) {
	for i := len(e.entries) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(e.entries[i], "="); ok && k == key {
			return v, true
		}
	}
	return "", false
}

// Set sets key to value, replacing every earlier setting.
func (e *Environ) Set(key, value string) {
	out := e.entries[:0]
	for _, kv := range e.entries {
		if k, _, _ := strings.Cut(kv, "="); k != key {
			out = append(out, kv)
		}
	}
	e.entries = append(out, key+"="+value)
	if !slices.Contains(e.set, key) {
		e.set = append(e.set, key)
	}
}

// IsHookPath reports whether p is a hook folder of any debug-mode build
// under this state root, so injecting again (or after an upgrade) replaces
// the old folder instead of adding a second one.
func (e *Environ) IsHookPath(p string) bool {
	return e.hooks != "" && strings.HasPrefix(filepath.Clean(p)+"/", e.hooks+"/")
}

// PrependPathList puts dir first in a list variable such as PYTHONPATH
// (entries separated by ':'), dropping the hook folders an earlier
// injection put there and keeping every other entry as it was.
func (e *Environ) PrependPathList(key, dir string) {
	old, _ := e.Get(key)
	parts := []string{dir}
	if old != "" {
		for _, p := range strings.Split(old, ":") {
			if !e.IsHookPath(p) {
				parts = append(parts, p)
			}
		}
	}
	e.Set(key, strings.Join(parts, ":"))
}

// Entries returns the environment.
func (e *Environ) Entries() []string { return e.entries }

// Inject returns base with the session's variables and every language's
// hook added: what reproduce gives the command it runs, and what
// `debug-mode env` prints (Set lists the variables it set, in order).
// Variables the user already set for the session are replaced; every other
// variable keeps what the user had (PYTHONPATH gains one entry in front).
func Inject(base []string, v sessionenv.Values, h Hooks) *Environ {
	e := &Environ{entries: append([]string(nil), base...), hooks: filepath.Dir(h.Dir)}
	for _, kv := range v.Environ() {
		k, val, _ := strings.Cut(kv, "=")
		e.Set(k, val)
	}
	for _, l := range languages {
		if dir, ok := h.Languages[l.ID]; ok && l.Inject != nil {
			l.Inject(e, dir)
		}
	}
	return e
}

// Variable is one variable an injection set.
type Variable struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// SetVariables lists the variables set through Set, each once, in the order they
// were first set, with their final values.
func (e *Environ) SetVariables() []Variable {
	out := make([]Variable, 0, len(e.set))
	for _, k := range e.set {
		v, _ := e.Get(k)
		out = append(out, Variable{k, v})
	}
	return out
}
