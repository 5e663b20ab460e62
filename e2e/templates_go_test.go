package e2e

func init() {
	registerTemplateCase(templateCase{
		Language: "go", Ingest: "file", Runtimes: []string{"go"},
		Source: "program.go", FileName: "main.go",
		HelperFile: "agent_debug_log.go", TemplateArgs: []string{"--package", "main"},
		Build: [][]string{{"sh", "-c", "test -f go.mod || go mod init example.com/program"}, {"go", "vet", "."}, {"go", "build", "-o", "program", "."}},
		Run:   []string{"./program"}, Threads: 4,
		Exprs: map[string]string{
			"nested":         `map[string]any{"a": map[string]any{"b": []any{1, 2.5, map[string]any{"c": nil}}}, "ok": true, "n": -7}`,
			"strings":        `map[string]any{"s": "quote\" backslash\\ newline\n tab\t ctrl\x01 é 日本 🎉"}`,
			"scalars":        `[]any{1, 2.5, true, nil, "x"}`,
			"oversize":       `map[string]any{"big": strings.Repeat("x", 100000)}`,
			"unserializable": `map[string]any{"ch": make(chan int), "cycle": selfMap()}`,
			"throws":         `map[string]any{"x": nilNode.Value}`,
			"secret":         `map[string]any{"password": "hunter2", "apiToken": "t0k3n", "user": "ann"}`,
			"thread":         `map[string]any{"thread": t, "i": i}`,
		},
	})
}
