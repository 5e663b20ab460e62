// Package helperstore keeps the probe helpers that live outside the project
// (Python, Node, Ruby, PHP) in the state directory, at helpers/<content
// hash>/<file>. A program imports a helper from there by absolute path and
// runs whatever the file holds, so each use checks the folders and the file
// as the rest of the state directory is checked, and more: the folders must
// be real directories of ours, owner-only; a symbolic link, a file of
// another user or a file whose content is not what debug-mode writes is
// replaced, and each such repair is reported so the agent knows the code it
// ran may not have been debug-mode's.
package helperstore

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"syscall"

	"github.com/agentic-debug-mode/debug-mode/internal/safefs"
	"github.com/agentic-debug-mode/debug-mode/internal/templates"
)

// Install writes every outside-project helper that is missing or not what
// debug-mode writes, and returns one sentence per repair. It refuses (an
// error naming the path) a folder it cannot make ours.
func Install(root *safefs.Root) ([]string, error) {
	return install(root, templates.OutsideHelpers())
}

func install(root *safefs.Root, helpers []templates.OutsideHelper) ([]string, error) {
	var notes []string
	root.SetRepairLog(func(r safefs.Repair) {
		notes = append(notes, fmt.Sprintf("%s was open to other users (mode %#o); it was made owner-only (%#o)", r.Path, r.From, r.To))
	})
	defer root.SetRepairLog(nil)
	dirsDone := map[string]bool{}
	for _, h := range helpers {
		for _, d := range []string{path.Dir(path.Dir(h.Rel)), path.Dir(h.Rel)} {
			if dirsDone[d] {
				continue
			}
			dirsDone[d] = true
			note, err := ensureDir(root, d)
			if err != nil {
				return notes, err
			}
			if note != "" {
				notes = append(notes, note)
			}
		}
		note, err := ensureFile(root, h)
		if err != nil {
			return notes, err
		}
		if note != "" {
			notes = append(notes, note)
		}
	}
	return notes, nil
}

// ensureDir makes rel a directory of ours: created when missing, a link or
// a file in its place removed (a link's target is never touched), loose
// permissions taken away. A directory of another user is refused: what is
// in it is not ours to delete.
func ensureDir(root *safefs.Root, rel string) (string, error) {
	full := root.Path() + "/" + rel
	fi, err := root.Stat(rel)
	note := ""
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case errors.Is(err, safefs.ErrSymlink):
		if err := root.Remove(rel); err != nil {
			return "", helperErr(err)
		}
		note = full + " was a symbolic link; the link was removed (its target was left alone) and a folder of debug-mode's made in its place"
	case err != nil:
		return "", helperErr(err)
	case !fi.IsDir():
		if err := root.RemoveAll(rel); err != nil {
			return "", helperErr(err)
		}
		note = full + " was not a folder; it was removed and a folder made in its place"
	default:
		_, err := root.Identify(rel) // makes a folder open to other users private
		return "", helperErr(err)
	}
	return note, helperErr(root.Mkdir(rel))
}

// ensureFile makes h's file hold exactly what debug-mode writes.
func ensureFile(root *safefs.Root, h templates.OutsideHelper) (string, error) {
	full := root.Path() + "/" + h.Rel
	fi, err := root.Stat(h.Rel)
	why := ""
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case errors.Is(err, safefs.ErrSymlink):
		why = "was a symbolic link (its target was left alone)"
	case errors.Is(err, safefs.ErrUnsafe):
		why = "belonged to another user"
		if ue := safefs.Explain(err); ue != "" {
			why = strings.TrimPrefix(ue, full+" ") // "belongs to uid …"
		}
	case err != nil:
		return "", helperErr(err)
	case !fi.Mode().IsRegular():
		why = "was not a regular file"
	default:
		b, err := root.ReadFile(h.Rel)
		if err != nil {
			return "", helperErr(err)
		}
		if bytes.Equal(b, h.Source) {
			return "", nil
		}
		why = "had been changed since debug-mode wrote it"
	}
	if why != "" {
		if err := root.RemoveAll(h.Rel); err != nil {
			return "", helperErr(err)
		}
	}
	if err := root.WriteFileAtomic(h.Rel, h.Source); err != nil {
		return "", helperErr(err)
	}
	if why == "" {
		return "", nil
	}
	return fmt.Sprintf("the probe helper %s %s; debug-mode wrote its own again. A program that imported it before ran that code, not debug-mode's: reproduce again before trusting its evidence.", full, why), nil
}

// helperErr says what could not be made safe and what to do.
func helperErr(err error) error {
	if err == nil {
		return nil
	}
	if s := safefs.Explain(err); s != "" {
		return fmt.Errorf("the probe helpers cannot be kept in the state directory: %s, which is not debug-mode's to change; remove it (as its owner) and run the command again", s)
	}
	var pe *fs.PathError
	if errors.As(err, &pe) && errors.Is(pe.Err, syscall.EACCES) {
		return fmt.Errorf("the probe helpers cannot be written: %s: permission denied; make it yours (or remove it) and run the command again", pe.Path)
	}
	return fmt.Errorf("writing the probe helpers: %w", err)
}
