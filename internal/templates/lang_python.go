package templates

func init() {
	register(language{id: "python", display: "Python", ext: "py", comment: "#", aliases: []string{"py", "python3"},
		ingests: []string{"file"}, encoding: NativeJSON, helperPlacement: OutsideProject, verifiedLive: true,
		outside: map[string]outside{"file": {file: "agent_debug_log.py"}},
		notes: []string{
			"No helper to paste: debug-mode keeps it outside the project (the helper path above, written by create and template; the same for every session). Paste the import region once at module top level, after the module's own imports, in each file with probes: it names the helper by its absolute path, so it works from any package (relative imports included), with python -m, and from any working directory, and the helper loads once per process. If the helper file is missing, agent_log does nothing.",
			"The helper fills location itself with the caller's absolute path and line (the service stores it relative to the session's project root); pass location=\"path:line\" only to name another place.",
			"Pass data as a lambda (as the call template does) so building the value happens inside the helper's guard and can never raise into the program.",
			"A call queues the event in memory (no lock of the program's, no system call); a background daemon thread writes the queue every 50 ms in one append, and the rest is written at exit (atexit, and on SIGTERM unless the program handles it). os._exit(), a fatal signal and a forked child's os._exit() (multiprocessing) skip that last write: up to 50 ms of events are lost.",
			"After 10,000 events from one location in one process (AGENT_DEBUG_MODE_MAX_PER_LOCATION, or the number in the import line) the location sends nothing more; the writer (every 50 ms) and the exit flush send an agentDebugHeldBack record with the count held back so far whenever it grew (a running total), so a killed program has reported it too. AGENT_DEBUG_MODE_APPEND_PATH, when set (debug-mode reproduce sets it), wins over the Append Path in the import line.",
		}})
}
