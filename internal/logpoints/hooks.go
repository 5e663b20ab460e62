package logpoints

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path"
	"sort"
	"sync"

	"github.com/agentic-debug-mode/debug-mode/internal/safefs"
	"github.com/agentic-debug-mode/debug-mode/internal/statedir"
)

// HooksDir is the folder of the state root the hooks are written to, one
// subfolder per content hash: a new build with other hooks writes a new
// folder, and a program already running keeps the one it loaded.
const HooksDir = statedir.HooksDir

// Hooks is where the hooks of this build are installed.
type Hooks struct {
	Dir       string            `json:"dir"`       // absolute: <state root>/hooks/<hash>
	Languages map[string]string `json:"languages"` // language ID → its absolute hook folder
}

type hookFile struct {
	rel  string // <language>/<path in its Hook>
	data []byte
}

var (
	hookOnce  sync.Once
	hookFiles []hookFile
	hookHash  string
	hookErr   error
)

// bundle reads every registered language's hook files once, and names them
// by a hash of their paths and contents.
func bundle() ([]hookFile, string, error) {
	hookOnce.Do(func() {
		for _, l := range languages {
			if l.Hook == nil {
				continue
			}
			hookErr = fs.WalkDir(l.Hook, ".", func(p string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return err
				}
				b, err := fs.ReadFile(l.Hook, p)
				if err != nil {
					return err
				}
				hookFiles = append(hookFiles, hookFile{rel: l.ID + "/" + p, data: b})
				return nil
			})
			if hookErr != nil {
				return
			}
		}
		sort.Slice(hookFiles, func(i, j int) bool { return hookFiles[i].rel < hookFiles[j].rel })
		h := sha256.New()
		for _, f := range hookFiles {
			h.Write([]byte(f.rel))
			h.Write([]byte{0})
			h.Write(f.data)
			h.Write([]byte{0})
		}
		hookHash = hex.EncodeToString(h.Sum(nil))[:16]
	})
	return hookFiles, hookHash, hookErr
}

// Install writes this build's hooks under the state root, owner-only and
// refusing symbolic links, unless they are there already with the same
// content (a file that differs is replaced). Safe to call from several
// processes at once: each file is replaced atomically with the same bytes.
func Install(root *safefs.Root) (Hooks, error) {
	files, hash, err := bundle()
	if err != nil {
		return Hooks{}, err
	}
	base := HooksDir + "/" + hash
	out := Hooks{Dir: root.Path() + "/" + base, Languages: map[string]string{}}
	for _, l := range languages {
		if l.Hook != nil {
			out.Languages[l.ID] = out.Dir + "/" + l.ID
		}
	}
	for _, f := range files {
		rel := base + "/" + f.rel
		old, err := root.ReadFile(rel)
		if err == nil && bytes.Equal(old, f.data) {
			continue
		}
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return Hooks{}, err
		}
		if err := root.MkdirAll(path.Dir(rel)); err != nil {
			return Hooks{}, err
		}
		if err := root.ReplaceFile(rel, f.data); err != nil {
			return Hooks{}, err
		}
	}
	return out, nil
}
