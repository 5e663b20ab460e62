package e2e

func init() {
	registerTemplateCase(templateCase{
		Language: "java", Ingest: "file", Runtimes: []string{"javac", "java"},
		// In the folder of its package, as in a real source tree: the helper
		// names com/acme/Foo.java-style paths, which the service maps to files.
		Source: "Program.java", FileName: "demo/Program.java",
		HelperFile: "demo/AgentDebugLog.java", TemplateArgs: []string{"--package", "demo"},
		Build: [][]string{
			// the helper must stay Java 8 compatible and warning-free
			{"javac", "--release", "8", "-Xlint:all", "-Werror", "-d", "classes", "demo/AgentDebugLog.java"},
			{"javac", "-Xlint:all", "-Werror", "-d", "classes", "-cp", "classes", "demo/Program.java"},
		},
		Run: []string{"java", "-cp", "classes", "demo.Program"}, Threads: 4,
		Exprs: map[string]string{
			"nested":         `AgentDebugLog.map("a", AgentDebugLog.map("b", Arrays.asList(1, 2.5, AgentDebugLog.map("c", null))), "ok", true, "n", -7)`,
			"strings":        `Map.of("s", "quote\" backslash\\ newline\n tab\t ctrl\001 é 日本 🎉")`,
			"scalars":        `Arrays.asList(1, 2.5, true, null, "x")`,
			"oversize":       `Map.of("big", "x".repeat(100000))`,
			"unserializable": `AgentDebugLog.map("node", new Node(), "cycle", selfList(), "nan", Double.NaN)`,
			"throws":         `Map.of("config", readConfig())`, // a method that throws a checked exception
			"secret":         `Map.of("password", "hunter2", "apiToken", "t0k3n", "user", "ann")`,
			"thread":         `Map.of("thread", t, "i", i)`,
		},
	})
}
