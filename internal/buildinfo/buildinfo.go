// Package buildinfo identifies this build of debug-mode, so a CLI can tell
// whether the running background service came from the same binary.
package buildinfo

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"runtime/debug"
	"sync"
)

// Version is the release version; set with -ldflags "-X .../buildinfo.Version=v1.2.3".
var Version = "dev"

// BuildIDEnv overrides the computed build identity. Tests use it to pose as
// another build without compiling a second binary.
const BuildIDEnv = "AGENT_DEBUG_MODE_BUILD_ID"

// FullVersion is what --version prints: the release version plus the module
// version and VCS revision when the binary carries them.
func FullVersion() string {
	v := Version
	if bi, ok := debug.ReadBuildInfo(); ok {
		if v == "dev" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			v = bi.Main.Version
		}
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				v += " (" + s.Value[:12] + ")"
			}
		}
	}
	return v
}

var (
	idOnce sync.Once
	id     string
)

// ID is a short identity of this exact executable: its version, path, size
// and modification time. Rebuilding or replacing the binary changes it, which
// is what makes a CLI replace a service started by an older build.
func ID() string {
	idOnce.Do(func() {
		if v := os.Getenv(BuildIDEnv); v != "" {
			id = v
			return
		}
		h := sha256.New()
		fmt.Fprint(h, FullVersion())
		if exe, err := os.Executable(); err == nil {
			if st, err := os.Stat(exe); err == nil {
				fmt.Fprintf(h, "|%s|%d|%d", exe, st.Size(), st.ModTime().UnixNano())
			}
		}
		id = hex.EncodeToString(h.Sum(nil))[:16]
	})
	return id
}
