package logpoints

import (
	"context"
	"embed"
	"io/fs"
	"os/exec"
)

// Python's hook is sitecustomize.py (what the interpreter imports at
// start-up from PYTHONPATH) and the module it loads; see the module's
// docstring for how it works. A check runs the same module's placement
// code in python3, so the verdict at add time is the hook's verdict.

//go:embed python/sitecustomize.py python/_agent_debug_mode_logpoints.py
var pythonFiles embed.FS

// pythonCheck runs the module's check_main with the hook folder first on
// the path; -I -S keep the user's environment and site out of it (and make
// it start in a few milliseconds).
const pythonCheck = `import sys
if sys.version_info < (3, 8):
    sys.stdout.write('{"unchecked": "python3 is %d.%d; logpoints need Python 3.8 or later"}' % sys.version_info[:2])
    raise SystemExit(0)
sys.path.insert(0, sys.argv[1])
import _agent_debug_mode_logpoints
_agent_debug_mode_logpoints.check_main()
`

func init() {
	sub, err := fs.Sub(pythonFiles, "python")
	if err != nil {
		panic(err)
	}
	Register(Language{ID: "python", Name: "Python", Extensions: []string{".py"}, Hook: sub, Check: checkPython,
		Inject: func(e *Environ, dir string) { e.PrependPathList("PYTHONPATH", dir) }})
}

// checkPython asks python3 whether the line can take the logpoint. Without
// python3 (or with one too old), the logpoint is kept unchecked: the hook
// still reports at run time whether it could place it.
func checkPython(ctx context.Context, hookDir string, req CheckRequest) CheckResult {
	py, err := exec.LookPath("python3")
	if err != nil {
		return unchecked("python3 is not installed here, so the line was not checked")
	}
	if hookDir == "" {
		return unchecked("the Python hook is not installed")
	}
	return runCheck(ctx, "python3", exec.CommandContext(ctx, py, "-I", "-S", "-c", pythonCheck, hookDir), req, lastLine)
}
