package templates

func init() {
	register(language{id: "csharp", display: "C#", ext: "cs", comment: "//", aliases: []string{"c#", "cs", "dotnet"},
		ingests: []string{"file"}, encoding: NativeJSON, helperPlacement: "top-level", verifiedLive: true,
		notes: []string{
			"C# needs a class, so the helper is one static class with no using directives: save it as a file of its own, AgentDebugLog.cs, in the project (one per program; every file of the assembly then calls AgentDebugLog.Log), or paste it at the top level of any existing .cs file, outside every namespace (not into a file with a file-scoped `namespace X;`). It compiles with Mono's mcs and current .NET (standard library only; no System.Text.Json). With <Nullable>enable</Nullable>, .NET reports nullable warnings for it (mcs cannot parse `#nullable`); if warnings are errors, put `#nullable disable` above it.",
			"Pass data as a lambda (as the call template does) so building the value happens inside the helper's guard; an exception becomes agentDebugDataError. Anonymous objects (`() => new { user.Id, total }`), dictionaries, lists, primitives and strings serialize as JSON; other objects outside System.* serialize their public fields and properties; anything else becomes its ToString(). Cycles and nesting deeper than 32 become an \"unserializable\" marker.",
			"On Linux and macOS each event is one write(2) on an O_APPEND descriptor (libc via DllImport), so threads and processes never interleave lines. Where libc is missing (Windows) it falls back to a FileStream under a lock: lines from threads of one process never interleave, but .NET's FileMode.Append is positional, so separate processes appending at the same instant can overwrite each other.",
		}})
}
