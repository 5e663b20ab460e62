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
	// Built with source maps and run with node --enable-source-maps, events
	// name the .ts line; built without, the compiled .js line (Compiled).
	commonJS := [][]string{
		strict("commonjs", "--lib", "es2020,dom", "--noEmit", "program.ts"), // beside DOM typings
		strict("commonjs", "--lib", "es2020", "--sourceMap", "program.ts"),  // and without them
	}
	mapped := []string{"node", "--enable-source-maps", "program.js"}
	// The http helper is a module of its own (agent_debug_log.ts), imported;
	// it reads no source maps (it is made for browsers).
	registerTemplateCase(templateCase{
		Language: "typescript", Ingest: "http", Runtimes: runtimes, HelperFile: "agent_debug_log.ts",
		Source: "program.ts", FileName: "program.ts", Build: commonJS, Compiled: "program.js",
		Run: []string{"node", "program.js"}, Threads: 4, Exprs: exprs,
	})
	registerTemplateCase(templateCase{
		Language: "typescript", Ingest: "file", Runtimes: runtimes,
		Source: "program.ts", FileName: "program.ts", Build: commonJS,
		Run: mapped, Threads: 4, Exprs: exprs,
	})
	registerTemplateCase(templateCase{
		Language: "typescript", Ingest: "file", Variant: "no-source-maps", Runtimes: runtimes,
		Source: "program.ts", FileName: "program.ts", Compiled: "program.js",
		Build: [][]string{strict("commonjs", "--lib", "es2020", "program.ts")},
		Run:   []string{"node", "program.js"}, Threads: 4, Exprs: exprs,
	})
	// process.exit(0) right after the last call: every event is written at
	// exit anyway, in CommonJS output …
	registerTemplateCase(templateCase{
		Language: "typescript", Ingest: "file", Variant: "process-exit", Runtimes: runtimes,
		Source: "program_exit.ts", FileName: "program.ts", Build: commonJS,
		Run: mapped, Threads: 4, Exprs: exprs,
	})
	// … and in ES module output.
	registerTemplateCase(templateCase{
		Language: "typescript", Ingest: "file", Variant: "process-exit-esm", Runtimes: runtimes,
		Source: "program_exit.ts", FileName: "program.mts", Skip: withoutGetBuiltinModule,
		Build: [][]string{strict("es2022", "--lib", "es2020", "--sourceMap", "program.mts")},
		Run:   []string{"node", "--enable-source-maps", "program.mjs"}, Threads: 4, Exprs: exprs,
	})
}
