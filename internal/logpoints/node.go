package logpoints

import (
	"context"
	"embed"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Node's hook is hook.cjs, which NODE_OPTIONS makes every Node process and
// worker thread of the program load first (--require); see its header for
// how it works. A check runs check.cjs, which compiles the file without
// running it and decides with the hook's own code, so the verdict at add
// time is the hook's verdict.

//go:embed node/hook.cjs node/check.cjs
var nodeFiles embed.FS

// NodeHookFile is the file of the Node hook NODE_OPTIONS requires.
const NodeHookFile = "hook.cjs"

func init() {
	sub, err := fs.Sub(nodeFiles, "node")
	if err != nil {
		panic(err)
	}
	Register(Language{ID: "node", Name: "Node.js", Extensions: []string{".js", ".mjs", ".cjs", ".ts", ".mts", ".cts"},
		Hook: sub, Check: checkNode, Inject: injectNode})
}

// injectNode puts `--require "<dir>/hook.cjs"` first in NODE_OPTIONS
// (before the user's own preloads, so their files are covered too), keeping
// every other option and dropping what an earlier injection added.
func injectNode(e *Environ, dir string) {
	old, _ := e.Get("NODE_OPTIONS")
	parts := []string{"--require " + nodeQuote(filepath.Join(dir, NodeHookFile))}
	toks := nodeOptionTokens(old)
	for i := 0; i < len(toks); i++ {
		v := toks[i].value
		switch {
		case (v == "--require" || v == "-r") && i+1 < len(toks) && e.IsHookPath(toks[i+1].value):
			i++
			continue
		case strings.HasPrefix(v, "--require=") && e.IsHookPath(strings.TrimPrefix(v, "--require=")):
			continue
		}
		parts = append(parts, toks[i].raw)
	}
	e.Set("NODE_OPTIONS", strings.Join(parts, " "))
}

// nodeQuote quotes a value as Node's NODE_OPTIONS parser reads it: in
// double quotes, with backslash before a quote or a backslash.
func nodeQuote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

type nodeToken struct{ raw, value string }

// nodeOptionTokens splits NODE_OPTIONS as Node does: at spaces outside
// double quotes, a backslash inside quotes escaping the next character.
// raw is each token as written, value as Node reads it.
func nodeOptionTokens(s string) []nodeToken {
	var out []nodeToken
	var raw, val strings.Builder
	in, started := false, false
	flush := func() {
		if started {
			out = append(out, nodeToken{raw.String(), val.String()})
		}
		raw.Reset()
		val.Reset()
		started = false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case !in && (c == ' ' || c == '\t' || c == '\n'):
			flush()
			continue
		case c == '"':
			in = !in
		case in && c == '\\' && i+1 < len(s):
			raw.WriteByte(c)
			i++
			c = s[i]
			val.WriteByte(c)
		default:
			val.WriteByte(c)
		}
		raw.WriteByte(c)
		started = true
	}
	flush()
	return out
}

// checkNode asks node whether the line can take the logpoint. Without node
// the logpoint is kept unchecked: the hook still reports at run time
// whether it could place it.
func checkNode(ctx context.Context, hookDir string, req CheckRequest) CheckResult {
	node, err := exec.LookPath("node")
	if err != nil {
		return unchecked("node is not installed here, so the line was not checked")
	}
	if hookDir == "" {
		return unchecked("the Node.js hook is not installed")
	}
	cmd := exec.CommandContext(ctx, node, "--experimental-vm-modules", "--no-warnings", filepath.Join(hookDir, "check.cjs"))
	// Not the user's NODE_OPTIONS (a preload of theirs, or of debug-mode's).
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); k != "NODE_OPTIONS" && !strings.HasPrefix(k, "AGENT_DEBUG_MODE_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Dir = filepath.Dir(req.File)
	return runCheck(ctx, "node", cmd, req, firstLine)
}
