package templates

func init() {
	register(language{id: "ruby", display: "Ruby", ext: "rb", comment: "#", aliases: []string{"rb"},
		ingests: []string{"file"}, encoding: NativeJSON, helperPlacement: "top-level", verifiedLive: true,
		notes: []string{
			"One helper per program: for one file, paste it at top level after the requires; for several files, paste it into a new file agent_debug_log.rb and add `require_relative \"agent_debug_log\"` (in its own region) to each instrumented file. It is guarded, so loading it twice is harmless; agent_log then works from any file, class or thread.",
			"Pass data in the block (as the call template does) so building the value happens inside the helper's guard and can never raise into the program.",
			"Each event is one unbuffered write on an O_APPEND descriptor, so threads, forks and processes never interleave lines.",
		}})
}
