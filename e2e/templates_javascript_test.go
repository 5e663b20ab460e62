package e2e

func init() {
	registerTemplateCase(templateCase{
		Language: "javascript", Ingest: "http", Runtimes: []string{"node"},
		Source: "program.js", FileName: "program.mjs",
		Run: []string{"node", "program.mjs"}, Threads: 4,
		Exprs: map[string]string{
			"nested":         `{ a: { b: [1, 2.5, { c: null }] }, ok: true, n: -7 }`,
			"strings":        `{ s: "quote\" backslash\\ newline\n tab\t ctrl\u0001 é 日本 🎉" }`,
			"scalars":        `[1, 2.5, true, null, "x"]`,
			"oversize":       `{ big: "x".repeat(100000) }`,
			"unserializable": `(() => { const o = { f: () => 1 }; o.self = o; return o; })()`,
			"throws":         `({ x: undefinedVariable.y })`,
			"secret":         `{ password: "hunter2", apiToken: "t0k3n", user: "ann" }`,
			"thread":         `{ thread: t, i }`,
		},
	})
}
