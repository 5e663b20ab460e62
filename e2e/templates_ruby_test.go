package e2e

func init() {
	registerTemplateCase(templateCase{
		Language: "ruby", Ingest: "file", Runtimes: []string{"ruby"},
		Source: "program.rb", FileName: "program.rb",
		Run: []string{"ruby", "program.rb"}, Threads: 4,
		Exprs: map[string]string{
			"nested":         `{ "a" => { "b" => [1, 2.5, { "c" => nil }] }, "ok" => true, "n" => -7 }`,
			"strings":        `{ "s" => "quote\" backslash\\ newline\n tab\t ctrl\u0001 é 日本 🎉" }`,
			"scalars":        `[1, 2.5, true, nil, "x"]`,
			"oversize":       `{ "big" => "x" * 100_000 }`,
			"unserializable": `{ "node" => Node.new, "nan" => Float::NAN, "cycle" => [].tap { |l| l << l } }`,
			"throws":         `{ "x" => 1 / 0 }`,
			"secret":         `{ "password" => "hunter2", "apiToken" => "t0k3n", "user" => "ann" }`,
			"thread":         `{ "thread" => t, "i" => i }`,
		},
	})
}
