package templates

func init() {
	// ext go.txt: a .go file here would be compiled as part of this module.
	register(language{id: "go", display: "Go", ext: "go.txt", comment: "//", aliases: []string{"golang"},
		ingests: []string{"file"}, encoding: NativeJSON, helperPlacement: "own-file", helperFile: "agent_debug_log.go", verifiedLive: true,
		extraPlaceholders: []Placeholder{{"__PACKAGE_NAME__", "the name in the package clause of the files beside the helper (main for a command)"}},
		notes: []string{
			"The helper is a complete file of its own, not a paste: its imports must open a file. Save it as agent_debug_log.go in each package you instrument (one file per package; agentLog is unexported, so it never joins the package's API), with __PACKAGE_NAME__ set to that package's name. Nothing needs importing at the call sites.",
			"Pass data inside func() any { return … } (as the call template does) so building the value runs inside the helper's recover and a nil dereference or index panic becomes an agentDebugDataError instead of crashing the program.",
			"Each event is one write of one line to the Append Path, opened once (O_APPEND) and kept open, so concurrent goroutines and processes never interleave; a call costs a few microseconds.",
			"Values are encoded with encoding/json (exported struct fields only, unless tagged); a value it cannot encode (a channel, a func, a cycle, NaN) is sent as an agentDebugUnserializable marker.",
			"When done, delete agent_debug_log.go: removing its region leaves only the package clause behind.",
		}})
}
