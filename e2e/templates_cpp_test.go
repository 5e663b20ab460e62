package e2e

func init() {
	registerTemplateCase(templateCase{
		Language: "cpp", Ingest: "file", Runtimes: []string{"g++"},
		Source: "program.cpp", FileName: "program.cpp",
		Build: [][]string{{"g++", "-std=c++17", "-Wall", "-Wextra", "-Werror", "-pthread", "-o", "program", "program.cpp"}},
		Run:   []string{"./program"}, Threads: 4,
		// serialized-json: each expression yields one JSON text. No
		// "unserializable" call: the helper takes text, so there is no value it
		// could fail to serialize (a non-JSON text is rejected by the service
		// and reported by status).
		Exprs: map[string]string{
			"nested":   "R\"({\"a\": {\"b\": [1, 2.5, {\"c\": null}]},\n\"ok\": true, \"n\": -7})\"", // pretty-printed: newlines become spaces
			"strings":  `"{\"s\":" + agent_debug_mode::json_string("quote\" backslash\\ newline\n tab\t ctrl\x01 é 日本 🎉") + "}"`,
			"scalars":  `"[1, 2.5, true, null, \"x\"]"`,
			"oversize": `"{\"big\":" + agent_debug_mode::json_string(std::string(100000, 'x')) + "}"`,
			"throws":   `"{\"x\":" + std::to_string(std::stoi("not a number")) + "}"`,
			"secret":   `R"({"password": "hunter2", "apiToken": "t0k3n", "user": "ann"})"`,
			"thread":   `"{\"thread\":" + std::to_string(t) + ",\"i\":" + std::to_string(i) + "}"`,
		},
	})
}
