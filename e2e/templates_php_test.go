package e2e

func init() {
	registerTemplateCase(templateCase{
		Language: "php", Ingest: "file", Runtimes: []string{"php"},
		Source: "program.php", FileName: "program.php",
		Run: []string{"php", "program.php"}, Threads: 4, // four forked processes: the PHP CLI has no threads
		Exprs: map[string]string{
			"nested":         `['a' => ['b' => [1, 2.5, ['c' => null]]], 'ok' => true, 'n' => -7]`,
			"strings":        `['s' => "quote\" backslash\\ newline\n tab\t ctrl\u{1} é 日本 🎉"]`,
			"scalars":        `[1, 2.5, true, null, 'x']`,
			"oversize":       `['big' => str_repeat('x', 100000)]`,
			"unserializable": `['node' => new Node(), 'nan' => NAN]`,
			"throws":         `['x' => intdiv(1, 0)]`,
			"secret":         `['password' => 'hunter2', 'apiToken' => 't0k3n', 'user' => 'ann']`,
			"thread":         `['thread' => $t, 'i' => $i]`,
		},
	})
}
