// Package buildinfo identifies this build of debug-mode: the version a bug
// report names, and the identity a CLI compares to tell whether the running
// background service came from the same binary.
package buildinfo

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"runtime/debug"
	"strings"
	"sync"
)

// Release is the version of this source tree, raised at each release.
const Release = "0.1.0"

// Version replaces Release for a packaged build
// (-ldflags "-X github.com/agentic-debug-mode/debug-mode/internal/buildinfo.Version=v1.2.3").
var Version = ""

// BuildIDEnv overrides the computed build identity. Tests use it to pose as
// another build without compiling a second binary.
const BuildIDEnv = "AGENT_DEBUG_MODE_BUILD_ID"

// FullVersion is what --version prints: the release, then what the Go
// toolchain recorded about the build (the git revision and whether the tree
// had changes, or the module version of a go install pkg@version), and the
// Go version.
func FullVersion() string {
	bi, _ := debug.ReadBuildInfo()
	return describe(Release, Version, bi)
}

// describe is FullVersion for a given release, override and build info
// (nil when the binary carries none).
func describe(release, override string, bi *debug.BuildInfo) string {
	v := release
	if override != "" {
		v = strings.TrimPrefix(override, "v")
	}
	if bi == nil {
		return v + " (no build information)"
	}
	var rev, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	var parts []string
	switch mod := bi.Main.Version; {
	case rev != "":
		if len(rev) > 12 {
			rev = rev[:12]
		}
		if modified == "true" {
			rev += ", modified"
		}
		parts = append(parts, "git "+rev)
	case mod != "" && mod != "(devel)":
		if strings.TrimPrefix(mod, "v") != v {
			parts = append(parts, "module "+mod)
		}
	default:
		parts = append(parts, "git revision unknown: built with -buildvcs=false or outside a git clone")
	}
	if bi.GoVersion != "" {
		parts = append(parts, bi.GoVersion)
	}
	return v + " (" + strings.Join(parts, "; ") + ")"
}

var (
	idOnce sync.Once
	id     string
)

// ID is a short identity of this exact executable: its full version, path,
// size and modification time. Rebuilding or replacing the binary changes it,
// which is what makes a CLI replace a service started by another build.
func ID() string {
	idOnce.Do(func() {
		if v := os.Getenv(BuildIDEnv); v != "" {
			id = v
			return
		}
		id = identity(FullVersion(), executable())
	})
	return id
}

// executable describes the running binary as path, size and modification
// time, or "" when it cannot be looked at.
func executable() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	st, err := os.Stat(exe)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%s|%d|%d", exe, st.Size(), st.ModTime().UnixNano())
}

func identity(version, exe string) string {
	h := sha256.Sum256([]byte(version + "|" + exe))
	return hex.EncodeToString(h[:])[:16]
}
