package e2e

func init() {
	registerTemplateCase(templateCase{
		Language: "csharp", Ingest: "file", Runtimes: []string{"mcs", "mono"},
		Source: "program.cs", FileName: "program.cs",
		Build: [][]string{{"mcs", "-warn:4", "-warnaserror", "-out:program.exe", "program.cs"}},
		Run:   []string{"mono", "program.exe"}, Threads: 4,
		Exprs: map[string]string{
			"nested":         `new { a = new { b = new object[] { 1, 2.5, new Dictionary<string, object> { { "c", null } } } }, ok = true, n = -7 }`,
			"strings":        `new { s = "quote\" backslash\\ newline\n tab\t ctrl\u0001 é 日本 🎉" }`,
			"scalars":        `new object[] { 1, 2.5, true, null, "x" }`,
			"oversize":       `new { big = new string('x', 100000) }`,
			"unserializable": `new { node = new Node(), nan = double.NaN }`,
			"throws":         `new { x = int.Parse("not a number") }`,
			"secret":         `new Dictionary<string, object> { { "password", "hunter2" }, { "apiToken", "t0k3n" }, { "user", "ann" } }`,
			"thread":         `new { thread = t, i = i }`,
		},
	})
}
