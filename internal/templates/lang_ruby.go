package templates

func init() {
	register(language{id: "ruby", display: "Ruby", ext: "rb", comment: "#", aliases: []string{"rb"},
		ingests: []string{"file"}, encoding: NativeJSON, helperPlacement: OutsideProject, verifiedLive: true,
		outside: map[string]outside{"file": {file: "agent_debug_log.rb"}},
		notes: []string{
			"No helper to paste: debug-mode keeps it outside the project (the helper path above, written by create and template; the same for every session). Paste the import region once at the top of each file with probes, after its requires: require by absolute path loads the helper once per process, from any folder and working directory, and agent_log then works from any file, class or thread. If the helper file is missing, agent_log does nothing.",
			"The helper fills location itself with the caller's absolute path and line (caller_locations; the service stores it relative to the session's project root); pass location: \"path:line\" only to name another place.",
			"Pass data in the block (as the call template does) so building the value happens inside the helper's guard and can never raise into the program.",
			"A call pushes the event onto a Thread::Queue (no lock of the program's, no system call); a background thread writes the queue every 50 ms in one append, and the rest at exit (at_exit, which also runs on SIGINT and SIGTERM). exit! and SIGKILL skip it. A forked child (Ruby 3.1+ Process._fork) starts with an empty queue.",
			"After 10,000 events from one location in one process (AGENT_DEBUG_MODE_MAX_PER_LOCATION, or the number in the import line) the location sends nothing more; the writer (every 50 ms) and the exit flush send an agentDebugHeldBack record with the count held back so far whenever it grew (a running total), so a killed program has reported it too. AGENT_DEBUG_MODE_APPEND_PATH, when set (debug-mode reproduce sets it), wins over the Append Path in the import line.",
		}})
}
