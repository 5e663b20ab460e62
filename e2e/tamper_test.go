package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestRefusedStateFileNamesPathAndFix: a symbolic link (or, as root, another
// user's file) in place of sessions/, service.json or cursor.key stops the
// service from starting; the error names the path, says why, and gives the
// command that clears it, and that command does.
func TestRefusedStateFileNamesPathAndFix(t *testing.T) {
	cases := []struct {
		name, fix string
		tamper    func(t *testing.T, p string)
	}{
		{"sessions", "rm", func(t *testing.T, p string) { replaceWithLink(t, p, true) }},
		{"service.json", "rm", func(t *testing.T, p string) { replaceWithLink(t, p, false) }},
		{"cursor.key", "rm", func(t *testing.T, p string) { replaceWithLink(t, p, false) }},
		{"cursor.key", "chown", func(t *testing.T, p string) {
			if os.Getuid() != 0 {
				t.Skip("needs root to give a file to another user")
			}
			if err := os.Chown(p, 65534, 65534); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name+"/"+c.fix, func(t *testing.T) {
			e := NewEnv(t)
			s := e.Create()
			e.MustRun("status", "--session", s.SessionID) // service.json, cursor.key exist
			stop(t, e)
			p := filepath.Join(e.Home, c.name)
			if c.name == "service.json" {
				os.WriteFile(p, []byte("{}\n"), 0o600) // a stale one
			}
			c.tamper(t, p)

			r := e.Run("status", "--session", s.SessionID)
			if r.Code != 1 {
				t.Fatalf("status with %s tampered: exit %d\n%s%s", c.name, r.Code, r.Stdout, r.Stderr)
			}
			var why, fix string
			if c.fix == "rm" {
				why, fix = p+" is a symbolic link", "rm "+p
			} else {
				why, fix = p+" belongs to uid 65534, not to you (uid 0)", "sudo chown -R 0 "+p
			}
			for _, want := range []string{why, fix, "then run the command again"} {
				if !strings.Contains(r.Stderr, want) {
					t.Errorf("the error lacks %q:\n%s", want, r.Stderr)
				}
			}
			if strings.Contains(r.Stderr, "failed to start: failed") {
				t.Errorf("the error says only that it failed:\n%s", r.Stderr)
			}
			// The advised command clears it.
			args := strings.Fields(fix)
			if args[0] == "sudo" {
				args = args[1:]
			}
			if out, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
				t.Fatalf("%s: %v %s", fix, err, out)
			}
			if c.name == "sessions" {
				e.MustRun("sessions")
				return // the sessions were behind the link; a fresh directory is made
			}
			e.MustRun("status", "--session", s.SessionID)
		})
	}
}

// replaceWithLink moves p outside the state root and puts a link to it in
// its place.
func replaceWithLink(t *testing.T, p string, dir bool) {
	t.Helper()
	target := filepath.Join(t.TempDir(), filepath.Base(p))
	if err := os.Rename(p, target); err != nil {
		if dir || !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(target, p); err != nil {
		t.Fatal(err)
	}
}

// TestSymlinkedSessionDirectoryCleaned: a session directory swapped for a
// link is refused by the very next command, whose error names it and
// advises clean; clean then works, removing the link and not its target.
func TestSymlinkedSessionDirectoryCleaned(t *testing.T) {
	e := NewEnv(t)
	s := e.Create()
	e.MustRun("status", "--session", s.SessionID) // loaded in the running service
	dir := filepath.Join(e.Home, "sessions", s.SessionID)
	target := filepath.Join(t.TempDir(), "copy")
	if out, err := exec.Command("cp", "-a", dir, target).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, dir); err != nil {
		t.Fatal(err)
	}

	r := e.Run("status", "--session", s.SessionID)
	for _, want := range []string{dir + " is a symbolic link", "debug-mode clean --session " + s.SessionID} {
		if r.Code != 1 || !strings.Contains(r.Stderr, want) {
			t.Errorf("status through a linked session directory: exit %d, want 1 with %q:\n%s%s", r.Code, want, r.Stdout, r.Stderr)
		}
	}
	e.MustRun("clean", "--session", s.SessionID)
	if _, err := os.Lstat(dir); !os.IsNotExist(err) {
		t.Errorf("the link is still there after clean: %v", err)
	}
	if _, err := os.Stat(filepath.Join(target, "events.ndjson")); err != nil {
		t.Errorf("clean touched the link's target: %v", err)
	}
	if out := e.MustRun("sessions", "--all"); strings.Contains(out, s.SessionID) {
		t.Errorf("the cleaned session is still listed:\n%s", out)
	}
}

// TestStateDirectoryReplacedWhileRunning: moving the state directory away
// and putting a copy in its place (or deleting it) while the service runs:
// the next command is answered from what the path holds now, on the same
// port, and the service that held the old directory is gone.
func TestStateDirectoryReplacedWhileRunning(t *testing.T) {
	for _, copyBack := range []bool{true, false} {
		t.Run(map[bool]string{true: "copied back", false: "deleted"}[copyBack], func(t *testing.T) {
			e := NewEnv(t)
			seedPort(t, e)
			s := e.Create()
			if code := post(t, s.IngestURL); code != 200 {
				t.Fatalf("post: %d", code)
			}
			e.MustRun("status", "--session", s.SessionID)
			oldPID, port, _ := e.Discovery()
			t.Cleanup(func() { syscall.Kill(oldPID, syscall.SIGKILL) })

			old := e.Home + ".old"
			if err := os.Rename(e.Home, old); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.RemoveAll(old) })
			if copyBack {
				if out, err := exec.Command("cp", "-a", old, e.Home).CombinedOutput(); err != nil {
					t.Fatalf("cp: %v %s", err, out)
				}
				f, err := os.OpenFile(s.AppendPath, os.O_WRONLY|os.O_APPEND, 0)
				if err != nil {
					t.Fatal(err)
				}
				f.WriteString(secRecord)
				f.Close()
			} else {
				os.RemoveAll(old)
			}

			r := e.Run("status", "--session", s.SessionID, "--json")
			if copyBack {
				if r.Code != 0 || !strings.Contains(r.Stdout, `"events": 2`) {
					t.Errorf("status on the copy: exit %d, want 0 with both events\n%s%s", r.Code, r.Stdout, r.Stderr)
				}
			} else if r.Code != 3 || !strings.Contains(r.Stderr, "no session with that id") {
				t.Errorf("status after deletion: exit %d, want 3 (no such session)\n%s%s", r.Code, r.Stdout, r.Stderr)
			}
			if !WaitExit(oldPID, 5*time.Second) {
				t.Errorf("the service on the old directory (pid %d) still runs", oldPID)
			}
			// With the copy, the port remembered in it is bound again (the
			// old service let it go); a deleted directory remembers none.
			newPID, newPort, ok := e.Discovery()
			if !ok || newPID == oldPID || copyBack && newPort != port {
				t.Errorf("service now pid %d port %d (ok %v), want a new one (on port %d after a copy)", newPID, newPort, ok, port)
			}
		})
	}
}
