package buildinfo

import (
	"runtime/debug"
	"testing"
)

func vcs(rev, modified string) []debug.BuildSetting {
	return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}
}

// TestDescribe: --version names the build, whatever way it was made.
func TestDescribe(t *testing.T) {
	const rev = "18410b9aacfb4825e882f017f3a581b2854a7e09"
	for _, c := range []struct {
		name, override string
		bi             *debug.BuildInfo
		want           string
	}{
		{"go build in a clean clone", "", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.0.0-20261130101133-18410b9aacfb"}, Settings: vcs(rev, "false")},
			"0.1.0 (git 18410b9aacfb; go1.26.8)"},
		{"go install from a clone with changes", "", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}, Settings: vcs(rev, "true")},
			"0.1.0 (git 18410b9aacfb, modified; go1.26.8)"},
		{"go install pkg@version", "", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.1.0"}},
			"0.1.0 (go1.26.8)"},
		{"go install of a pseudo-version", "", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.0.0-20261130101133-18410b9aacfb"}},
			"0.1.0 (module v0.0.0-20261130101133-18410b9aacfb; go1.26.8)"},
		{"-buildvcs=false", "", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}},
			"0.1.0 (git revision unknown: built with -buildvcs=false or outside a git clone; go1.26.8)"},
		{"packaged with -ldflags -X", "v0.2.0", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.2.0"}},
			"0.2.0 (go1.26.8)"},
		{"no build information", "", nil, "0.1.0 (no build information)"},
	} {
		if got := describe("0.1.0", c.override, c.bi); got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
}

// TestIdentity: two builds differ in identity when their versions or their
// executables do, so a CLI replaces a service of another build.
func TestIdentity(t *testing.T) {
	a := identity("0.1.0 (git 18410b9aacfb; go1.26.8)", "/bin/debug-mode|100|1")
	for _, other := range [][2]string{
		{"0.1.0 (git 18410b9aacfb, modified; go1.26.8)", "/bin/debug-mode|100|1"},
		{"0.1.0 (git 18410b9aacfb; go1.26.8)", "/bin/debug-mode|100|2"},
		{"0.1.0 (git 18410b9aacfb; go1.26.8)", "/usr/bin/debug-mode|100|1"},
	} {
		if identity(other[0], other[1]) == a {
			t.Errorf("%q %q has the same identity as the first build", other[0], other[1])
		}
	}
	if identity("0.1.0 (git 18410b9aacfb; go1.26.8)", "/bin/debug-mode|100|1") != a || len(a) != 16 {
		t.Errorf("identity is not a stable 16-digit hash: %q", a)
	}
}
