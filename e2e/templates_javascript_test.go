package e2e

import (
	"os/exec"
	"strings"
)

// Node before 20.16 has no process.getBuiltinModule; these runs remove it,
// so the file helper takes the path Node 18 takes (require in CommonJS,
// import("node:fs") in an ES module).
const (
	node18CommonJS = `delete process.getBuiltinModule; require("./program.cjs")`
	node18ESM      = `delete process.getBuiltinModule; await import("./program.mjs")`
)

// withoutGetBuiltinModule skips a case that proves process.exit() right after
// the last call in an ES module: on Node before 20.16 (and 22.3) the helper
// there gets node:fs from import() a few ticks later, as its notes say.
func withoutGetBuiltinModule() string {
	out, err := exec.Command("node", "-p", `typeof process.getBuiltinModule + " " + process.version`).Output()
	if f := strings.Fields(string(out)); err == nil && len(f) == 2 && f[0] == "undefined" {
		return "Node " + f[1] + " has no process.getBuiltinModule: an ES module's first events wait for import(\"node:fs\")"
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
	registerTemplateCase(templateCase{
		Language: "javascript", Ingest: "http", Runtimes: node,
		Source: "program.js", FileName: "program.mjs",
		Run: []string{"node", "program.mjs"}, Threads: 4, Exprs: exprs,
	})
	registerTemplateCase(templateCase{
		Language: "javascript", Ingest: "file", Runtimes: node,
		Source: "program.js", FileName: "program.mjs",
		Run: []string{"node", "program.mjs"}, Threads: 4, Exprs: exprs,
	})
	// process.exit(0) right after the last call: every event has arrived anyway.
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
	// An ES module on Node 18: events wait for import("node:fs"), then all arrive.
	registerTemplateCase(templateCase{
		Language: "javascript", Ingest: "file", Variant: "esm-node18", Runtimes: node,
		Source: "program.js", FileName: "program.mjs",
		Run: []string{"node", "--input-type=module", "-e", node18ESM}, Threads: 4, Exprs: exprs,
	})
}
