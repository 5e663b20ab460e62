package e2e

func init() {
	// PowerShell (pwsh 7) cannot be installed on this project's machines: the
	// case skips here even under DEBUG_MODE_REQUIRE_RUNTIMES and runs wherever
	// pwsh is.
	registerTemplateCase(templateCase{
		Language: "powershell", Ingest: "file", Runtimes: []string{"pwsh"}, NotInstallableHere: true,
		Source: "program.ps1", FileName: "program.ps1",
		Run:     []string{"pwsh", "-NoProfile", "-NonInteractive", "-File", "program.ps1"},
		Threads: 4,
		Exprs: map[string]string{
			"nested":         `@{ a = @{ b = @(1, 2.5, @{ c = $null }) }; ok = $true; n = -7 }`,
			"strings":        "@{ s = \"quote`\" backslash\\ newline`n tab`t ctrl$([char]1) é 日本 🎉\" }",
			"scalars":        `@(1, 2.5, $true, $null, 'x')`,
			"oversize":       `@{ big = 'x' * 100000 }`,
			"unserializable": `@{ node = [System.IO.MemoryStream]::new(); cycle = & { $h = @{}; $h['self'] = $h; $h } }`,
			"throws":         `@{ x = [int]::Parse('not a number') }`,
			"secret":         `@{ password = 'hunter2'; apiToken = 't0k3n'; user = 'ann' }`,
			"thread":         `@{ thread = $t; i = $i }`,
		},
	})
}
