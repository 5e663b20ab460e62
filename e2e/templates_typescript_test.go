package e2e

import "path/filepath"

func init() {
	// tsc comes from npm into tools/ (scripts/setup.sh), not from PATH.
	tsc, _ := filepath.Abs("../tools/node_modules/.bin/tsc")
	strict := func(module string, more ...string) []string {
		return append([]string{tsc, "--strict", "--noUnusedLocals", "--noUnusedParameters", "--noImplicitReturns",
			"--noUncheckedIndexedAccess", "--noPropertyAccessFromIndexSignature", "--exactOptionalPropertyTypes",
			"--target", "es2020", "--module", module}, more...)
	}
	exprs := map[string]string{
		"nested":         `{ a: { b: [1, 2.5, { c: null }] }, ok: true, n: -7 }`,
		"strings":        `{ s: "quote\" backslash\\ newline\n tab\t ctrl\u0001 é 日本 🎉" }`,
		"scalars":        `[1, 2.5, true, null, "x"]`,
		"oversize":       `{ big: "x".repeat(100000) }`,
		"unserializable": `(() => { const o: { [k: string]: unknown } = { f: () => 1 }; o["self"] = o; return o; })()`,
		"throws":         `{ x: JSON.parse("{") as unknown }`,
		"secret":         `{ password: "hunter2", apiToken: "t0k3n", user: "ann" }`,
		"thread":         `{ thread: t, i }`,
	}
	runtimes := []string{"node", tsc}
	commonJS := [][]string{
		strict("commonjs", "--lib", "es2020,dom", "--noEmit", "program.ts"), // beside DOM typings
		strict("commonjs", "--lib", "es2020", "program.ts"),                 // and without them
	}
	for _, ingest := range []string{"http", "file"} {
		registerTemplateCase(templateCase{
			Language: "typescript", Ingest: ingest, Runtimes: runtimes,
			Source: "program.ts", FileName: "program.ts", Build: commonJS,
			Run: []string{"node", "program.js"}, Threads: 4, Exprs: exprs,
		})
	}
	// process.exit(0) right after the last call: every event has arrived anyway,
	// in CommonJS output on Node 18 (require; see templates_javascript_test.go) …
	registerTemplateCase(templateCase{
		Language: "typescript", Ingest: "file", Variant: "process-exit-node18", Runtimes: runtimes,
		Source: "program_exit.ts", FileName: "program.ts", Build: commonJS,
		Run: []string{"node", "-e", `delete process.getBuiltinModule; require("./program.js")`}, Threads: 4, Exprs: exprs,
	})
	// … and in ES module output (process.getBuiltinModule).
	esm := [][]string{strict("es2022", "--lib", "es2020", "program.mts")}
	registerTemplateCase(templateCase{
		Language: "typescript", Ingest: "file", Variant: "process-exit-esm", Runtimes: runtimes,
		Source: "program_exit.ts", FileName: "program.mts", Build: esm, Skip: withoutGetBuiltinModule,
		Run: []string{"node", "program.mjs"}, Threads: 4, Exprs: exprs,
	})
	// ES module output on Node 18: events wait for import("node:fs"), then all arrive.
	registerTemplateCase(templateCase{
		Language: "typescript", Ingest: "file", Variant: "esm-node18", Runtimes: runtimes,
		Source: "program.ts", FileName: "program.mts", Build: esm,
		Run: []string{"node", "--input-type=module", "-e", node18ESM}, Threads: 4, Exprs: exprs,
	})
}
