package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestVersionNamesTheBuild: a go build from a git clone prints the release,
// the revision it was built from, and whether the tree had changes, so a bug
// report can name the build.
func TestVersionNamesTheBuild(t *testing.T) {
	top, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Skip("not a git checkout (or no git): nothing to clone")
	}
	clone := filepath.Join(t.TempDir(), "clone")
	run(t, "", "git", "clone", "-q", "--no-hardlinks", strings.TrimSpace(string(top)), clone)
	rev := strings.TrimSpace(run(t, clone, "git", "rev-parse", "HEAD"))

	version := func() string {
		bin := filepath.Join(t.TempDir(), "debug-mode")
		build := exec.Command("go", "build", "-o", bin, "./cmd/debug-mode")
		build.Dir = clone
		build.Env = append(os.Environ(), "GOFLAGS=-buildvcs=true") // the default for a user; this machine's go env may turn it off
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("go build: %v\n%s", err, out)
		}
		return run(t, "", bin, "--version")
	}
	if got, want := version(), regexp.MustCompile(`^debug-mode \d+\.\d+\.\d+ \(git `+rev[:12]+`; go1\.\d+`); !want.MatchString(got) {
		t.Errorf("--version of a clean clone at %s: %q, want %s", rev[:12], got, want)
	}
	main := filepath.Join(clone, "cmd", "debug-mode", "main.go")
	b, err := os.ReadFile(main)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(main, append(b, "\n// a local change\n"...), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := version(); !strings.Contains(got, "(git "+rev[:12]+", modified; go1.") {
		t.Errorf("--version with local changes: %q, want it to say modified", got)
	}
}
