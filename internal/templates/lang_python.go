package templates

func init() {
	register(language{id: "python", display: "Python", ext: "py", comment: "#", aliases: []string{"py", "python3"},
		ingests: []string{"file"}, encoding: NativeJSON, helperPlacement: "top-level", verifiedLive: true,
		notes: []string{
			"One helper per program: for one file, paste it at module top level after the imports; for a package, paste it into a new module agent_debug_log.py and add `from agent_debug_log import agent_log` (in its own region) to each instrumented module.",
			"Pass data as a lambda (as the call template does) so building the value happens inside the helper's guard and can never raise into the program.",
		}})
}
