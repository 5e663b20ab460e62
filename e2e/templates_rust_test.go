package e2e

func init() {
	registerTemplateCase(templateCase{
		Language: "rust", Ingest: "file", Runtimes: []string{"rustc"},
		Source: "program.rs", FileName: "program.rs",
		Build: [][]string{{"rustc", "--edition", "2021", "-D", "warnings", "-o", "program", "program.rs"}},
		Run:   []string{"./program"}, Threads: 4,
		// serialized-json: each expression yields one JSON text. No
		// "unserializable" call: the helper takes text, so there is no value
		// it could fail to serialize (a non-JSON text is rejected by the
		// service and reported by status).
		Exprs: map[string]string{
			"nested":   "r#\"{\"a\": {\"b\": [1, 2.5, {\"c\": null}]},\n\"ok\": true, \"n\": -7}\"#", // pretty-printed: newlines become spaces
			"strings":  `format!("{{\"s\": {}}}", crate::agent_debug_mode::json_string("quote\" backslash\\ newline\n tab\t ctrl\u{1} é 日本 🎉"))`,
			"scalars":  `"[1, 2.5, true, null, \"x\"]"`,
			"oversize": `format!("{{\"big\": {}}}", crate::agent_debug_mode::json_string(&"x".repeat(100000)))`,
			"throws":   `format!("{{\"x\": {}}}", "not a number".parse::<i32>().unwrap())`,
			"secret":   `r#"{"password": "hunter2", "apiToken": "t0k3n", "user": "ann"}"#`,
			"thread":   `format!("{{\"thread\": {}, \"i\": {}}}", t, i)`,
		},
	})
}
