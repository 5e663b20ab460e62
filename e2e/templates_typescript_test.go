package e2e

import "path/filepath"

func init() {
	// tsc comes from npm into tools/ (scripts/setup.sh), not from PATH.
	tsc, _ := filepath.Abs("../tools/node_modules/.bin/tsc")
	strict := []string{tsc, "--strict", "--noUnusedLocals", "--noUnusedParameters", "--noImplicitReturns",
		"--noUncheckedIndexedAccess", "--noPropertyAccessFromIndexSignature", "--exactOptionalPropertyTypes",
		"--target", "es2020", "--module", "commonjs"}
	registerTemplateCase(templateCase{
		Language: "typescript", Ingest: "http", Runtimes: []string{"node", tsc},
		Source: "program.ts", FileName: "program.ts",
		Build: [][]string{
			append(append([]string{}, strict...), "--lib", "es2020,dom", "--noEmit", "program.ts"), // beside DOM typings
			append(append([]string{}, strict...), "--lib", "es2020", "program.ts"),                 // and without them
		},
		Run: []string{"node", "program.js"}, Threads: 4,
		Exprs: map[string]string{
			"nested":         `{ a: { b: [1, 2.5, { c: null }] }, ok: true, n: -7 }`,
			"strings":        `{ s: "quote\" backslash\\ newline\n tab\t ctrl\u0001 é 日本 🎉" }`,
			"scalars":        `[1, 2.5, true, null, "x"]`,
			"oversize":       `{ big: "x".repeat(100000) }`,
			"unserializable": `(() => { const o: { [k: string]: unknown } = { f: () => 1 }; o["self"] = o; return o; })()`,
			"throws":         `{ x: JSON.parse("{") as unknown }`,
			"secret":         `{ password: "hunter2", apiToken: "t0k3n", user: "ann" }`,
			"thread":         `{ thread: t, i }`,
		},
	})
}
