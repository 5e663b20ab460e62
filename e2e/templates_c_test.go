package e2e

func init() {
	registerTemplateCase(templateCase{
		Language: "c", Ingest: "file", Runtimes: []string{"gcc"},
		Source: "program.c", FileName: "program.c",
		Build: [][]string{{"gcc", "-std=c11", "-Wall", "-Wextra", "-Werror", "-pthread", "-o", "program", "program.c"}},
		Run:   []string{"./program"}, Threads: 4,
		// serialized-json: each expression yields one JSON text. No "throws"
		// call: C has no exceptions, and the data argument is evaluated by the
		// program before the helper runs. "unserializable" is a NULL data
		// pointer, the one value the helper cannot send as JSON text.
		Exprs: map[string]string{
			"nested":         `agent_debug_json("{\"a\":{\"b\":[%d,%g,{\"c\":null}]},\n\"ok\":%s,\"n\":%d}", 1, 2.5, 1 ? "true" : "false", -7)`,
			"strings":        `agent_debug_json("{\"s\":%s}", agent_debug_json_string("quote\" backslash\\ newline\n tab\t ctrl\x01 é 日本 🎉"))`,
			"scalars":        `"[1, 2.5, true, null, \"x\"]"`,
			"oversize":       `agent_debug_json("{\"big\":%s}", agent_debug_json_string(big))`,
			"unserializable": `(const char *)NULL`,
			"secret":         `"{\"password\": \"hunter2\", \"apiToken\": \"t0k3n\", \"user\": \"ann\"}"`,
			"thread":         `agent_debug_json("{\"thread\":%d,\"i\":%d}", t, i)`,
		},
	})
}
