package e2e

import (
	"os/exec"
	"strings"
)

// Node before 20.16 has no process.getBuiltinModule; these runs remove it,
// so the file helper's import takes the path Node 18 takes (require, in
// CommonJS; an ES module there gets no helper, as the notes say).
const node18CommonJS = `delete process.getBuiltinModule; require("./program.cjs")`

// withoutGetBuiltinModule skips a case whose ES module imports the file
// helper: on Node before 20.16 (and 22.3) that needs process.getBuiltinModule.
func withoutGetBuiltinModule() string {
	out, err := exec.Command("node", "-p", `typeof process.getBuiltinModule + " " + process.version`).Output()
	if f := strings.Fields(string(out)); err == nil && len(f) == 2 && f[0] == "undefined" {
		return "Node " + f[1] + " has no process.getBuiltinModule: an ES module cannot load the file helper"
	}
	return ""
}

func init() {
	exprs := map[string]string{
		"nested":         `{ a: { b: [1, 2.5, { c: null }] }, ok: true, n: -7 }`,
		"strings":        `{ s: "quote\" backslash\\ newline\n tab\t ctrl\u0001 é 日本 🎉" }`,
		"scalars":        `[1, 2.5, true, null, "x"]`,
		"oversize":       `{ big: "x".repeat(100000) }`,
		"unserializable": `(() => { const o = { f: () => 1 }; o.self = o; return o; })()`,
		"throws":         `({ x: undefinedVariable.y })`,
		"secret":         `{ password: "hunter2", apiToken: "t0k3n", user: "ann" }`,
		"thread":         `{ thread: t, i }`,
	}
	node := []string{"node"}
	// The http helper is an ES module of its own, imported by the program.
	registerTemplateCase(templateCase{
		Language: "javascript", Ingest: "http", Runtimes: node, HelperFile: "agent_debug_log.mjs",
		Source: "program.js", FileName: "program.mjs",
		Run: []string{"node", "program.mjs"}, Threads: 4, Exprs: exprs,
	})
	// The file helper lives outside the project; ES modules and CommonJS
	// import it with the same line.
	registerTemplateCase(templateCase{
		Language: "javascript", Ingest: "file", Runtimes: node, Skip: withoutGetBuiltinModule,
		Source: "program.js", FileName: "program.mjs",
		Run: []string{"node", "program.mjs"}, Threads: 4, Exprs: exprs,
	})
	registerTemplateCase(templateCase{
		Language: "javascript", Ingest: "file", Variant: "commonjs", Runtimes: node,
		Source: "program.js", FileName: "program.cjs",
		Run: []string{"node", "program.cjs"}, Threads: 4, Exprs: exprs,
	})
	// process.exit(0) right after the last call: the exit handler writes
	// everything still queued.
	registerTemplateCase(templateCase{
		Language: "javascript", Ingest: "file", Variant: "process-exit", Runtimes: node,
		Source: "program_exit.js", FileName: "program.mjs", Skip: withoutGetBuiltinModule,
		Run: []string{"node", "program.mjs"}, Threads: 4, Exprs: exprs,
	})
	registerTemplateCase(templateCase{
		Language: "javascript", Ingest: "file", Variant: "process-exit-commonjs-node18", Runtimes: node,
		Source: "program_exit.js", FileName: "program.cjs",
		Run: []string{"node", "-e", node18CommonJS}, Threads: 4, Exprs: exprs,
	})
}
