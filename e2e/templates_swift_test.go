package e2e

func init() {
	// Swift cannot be installed on this project's machines: the case skips
	// here even under DEBUG_MODE_REQUIRE_RUNTIMES and runs wherever swiftc is.
	registerTemplateCase(templateCase{
		Language: "swift", Ingest: "file", Runtimes: []string{"swiftc"}, NotInstallableHere: true,
		Source: "program.swift", FileName: "main.swift",
		Build: [][]string{{"swiftc", "main.swift", "-o", "program"}},
		Run:   []string{"./program"}, Threads: 4,
		Exprs: map[string]string{
			"nested":         `["a": ["b": [1, 2.5, ["c": nil] as [String: Any?]] as [Any]], "ok": true, "n": -7] as [String: Any]`,
			"strings":        `["s": "quote\" backslash\\ newline\n tab\t ctrl\u{1} é 日本 🎉"]`,
			"scalars":        `[1, 2.5, true, nil, "x"] as [Any?]`,
			"oversize":       `["big": String(repeating: "x", count: 100000)]`,
			"unserializable": `["node": Node(), "nan": Double.nan] as [String: Any]`,
			"throws":         `["x": try JSONSerialization.jsonObject(with: Data("{".utf8))]`,
			"secret":         `["password": "hunter2", "apiToken": "t0k3n", "user": "ann"]`,
			"thread":         `["thread": t, "i": i]`,
		},
	})
}
