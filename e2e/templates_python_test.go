package e2e

func init() {
	registerTemplateCase(templateCase{
		Language: "python", Ingest: "file", Runtimes: []string{"python3"},
		Source: "program.py", FileName: "program.py",
		Run: []string{"python3", "program.py"}, Threads: 4,
		Exprs: map[string]string{
			"nested":         `{"a": {"b": [1, 2.5, {"c": None}]}, "ok": True, "n": -7}`,
			"strings":        `{"s": "quote\" backslash\\ newline\n tab\t ctrl\x01 é 日本 🎉"}`,
			"scalars":        `[1, 2.5, True, None, "x"]`,
			"oversize":       `{"big": "x" * 100000}`,
			"unserializable": `{"node": Node(), "cycle": (lambda l: (l.append(l), l)[1])([])}`,
			"throws":         `{"x": 1 / 0}`,
			"secret":         `{"password": "hunter2", "apiToken": "t0k3n", "user": "ann"}`,
			"thread":         `{"thread": t, "i": i}`,
		},
	})
}
