package projectroot

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func writeFiles(t *testing.T, root string, files ...string) {
	t.Helper()
	for _, f := range files {
		p := filepath.Join(root, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestFind(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, "src/app/x.py")
	sub := filepath.Join(root, "src", "app")
	if got := Find(sub); got != sub {
		t.Errorf("outside a work tree: Find = %s, want the folder itself", got)
	}
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := Find(sub); got != root {
		t.Errorf("inside a work tree: Find = %s, want its top %s", got, root)
	}
}

// TestLocation covers every way a location is normalized, and every way it
// is kept as sent.
func TestLocation(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root,
		"report.py", "pkg/mod.py",
		"src/main/java/com/acme/Foo.java",
		"crates/core/src/lib.rs",
		"native/src/x.c",
		"web/src/app.js",
		"a/util.js", "b/util.js", // two files with one name
		"gen/skip.py", ".gitignore",
	)
	if err := os.WriteFile(filepath.Join(root, ".gitignore"), []byte("gen/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	writeFiles(t, outside, "secret.py")
	if err := os.Symlink(outside, filepath.Join(root, "linked")); err != nil {
		t.Fatal(err)
	}
	n := New(root)
	for _, c := range []struct{ in, want string }{
		// absolute under the root → root-relative
		{root + "/pkg/mod.py:12", "pkg/mod.py:12"},
		{root + "/pkg/./sub/../mod.py:3:9", "pkg/mod.py:3:9"},
		{"file://" + root + "/web/src/app.js:4:2", "web/src/app.js:4:2"},
		{root + "/not/there.py:5", "not/there.py:5"}, // under the root: named, even before it exists
		// relative and there → stays (cleaned)
		{"report.py:44", "report.py:44"},
		{"./pkg/mod.py:7", "pkg/mod.py:7"},
		// relative, not there, one file ends with it → that file
		{"com/acme/Foo.java:10", "src/main/java/com/acme/Foo.java:10"},
		{"src/lib.rs:8", "crates/core/src/lib.rs:8"},
		{"../src/x.c:3", "native/src/x.c:3"},
		{"mod.py:2", "pkg/mod.py:2"}, // relative to the program's folder, not the root
		// a page URL whose path is in the project
		{"http://127.0.0.1:5173/web/src/app.js:9:1", "web/src/app.js:9:1"},
		{"http://localhost:5173/src/app.js?t=1:9", "web/src/app.js:9"}, // a dev server's query and a suffix
		{"http://localhost:8080/@fs" + root + "/web/src/app.js:2", "web/src/app.js:2"},
		// kept as sent
		{"util.js:2", "util.js:2"},                     // two files fit
		{"skip.py:1", "skip.py:1"},                     // only in an ignored folder
		{"/elsewhere/app.py:1", "/elsewhere/app.py:1"}, // absolute outside the root
		{root + "/../x.py:1", root + "/../x.py:1"},
		{"linked/secret.py:1", "linked/secret.py:1"}, // a link out of the root is not followed
		{"checkout", "checkout"},                     // no line
		{"report.py:0", "report.py:0"},
		{"report.py", "report.py"},
		{"C:\\work\\other.py:3", "C:\\work\\other.py:3"},
		{"file://host/x.py:1", "file://host/x.py:1"},
	} {
		if got := n.Location(c.in); got != c.want {
			t.Errorf("Location(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestLocationSymlinkedRoot accepts an absolute path through the root's real
// path (Node reports real paths; the root may be recorded through a link).
func TestLocationSymlinkedRoot(t *testing.T) {
	real := t.TempDir()
	writeFiles(t, real, "app/main.js")
	link := filepath.Join(t.TempDir(), "project")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	n := New(link)
	for _, in := range []string{link + "/app/main.js:3", real + "/app/main.js:3", "app/main.js:3"} {
		if got := n.Location(in); got != "app/main.js:3" {
			t.Errorf("Location(%q) = %q, want app/main.js:3", in, got)
		}
	}
}

// TestLocationCacheAndRetry resolves a path once, and tries a miss again
// after RetryAfter (the file may have been created since).
func TestLocationCacheAndRetry(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, "a.py")
	n := New(root)
	clock := time.Unix(1_800_000_000, 0)
	n.now = func() time.Time { return clock }
	if got := n.Location("lib/b.py:1"); got != "lib/b.py:1" {
		t.Fatalf("before the file exists: %q", got)
	}
	writeFiles(t, root, "src/lib/b.py")
	if got := n.Location("lib/b.py:1"); got != "lib/b.py:1" {
		t.Errorf("a miss is remembered for a while: %q", got)
	}
	clock = clock.Add(RetryAfter + time.Second)
	if got := n.Location("lib/b.py:2"); got != "src/lib/b.py:2" {
		t.Errorf("after RetryAfter: %q, want src/lib/b.py:2", got)
	}
	// A hit is remembered even when the file goes away.
	os.Remove(filepath.Join(root, "src", "lib", "b.py"))
	if got := n.Location("lib/b.py:3"); got != "src/lib/b.py:3" {
		t.Errorf("a hit is remembered: %q", got)
	}
	// The cache is bounded.
	for i := range MaxCached + 10 {
		n.Location("x" + strings.Repeat("y", i%7) + ".py:" + strconv.Itoa(i+1))
	}
	if len(n.cache) > MaxCached {
		t.Errorf("cache holds %d paths, more than %d", len(n.cache), MaxCached)
	}
}

// TestLocationIndexBound trusts no suffix match when the index could not
// see every file.
func TestLocationIndexBound(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, "deep/only/one.py")
	n := New(root)
	n.reindex()
	if !n.whole || n.bySuffix("only/one.py") != "deep/only/one.py" {
		t.Fatalf("small tree: whole=%v", n.whole)
	}
	n.whole = false
	if got := n.bySuffix("only/one.py"); got != "" {
		t.Errorf("with a partial index: %q, want no match", got)
	}
}
