package templates

func init() {
	register(language{id: "php", display: "PHP", ext: "php", comment: "//",
		ingests: []string{"file"}, encoding: NativeJSON, helperPlacement: OutsideProject, verifiedLive: true,
		outside: map[string]outside{"file": {file: "agent_debug_log.php"}},
		notes: []string{
			"No helper to paste: debug-mode keeps it outside the project (the helper path above, written by create and template; the same for every session). Paste the import region once in each file with probes, after `<?php` (and after declare(strict_types=1) or a namespace line, if any): include_once by absolute path loads the helper once per process from any folder and working directory, and calls from namespaced code reach the global agent_log. If the helper file is missing, agent_log does nothing.",
			"The helper fills location itself with the caller's absolute path and line (debug_backtrace; the service stores it relative to the session's project root); pass it as a fourth argument only to name another place.",
			"Pass data as an arrow function (as the call template does: `fn () => ...` captures variables by value) so building the value happens inside the helper's guard; exceptions and errors become agentDebugDataError. PHP notices inside the expression stay the program's own.",
			"PHP has no threads, so events wait in memory and are written in one append at shutdown (register_shutdown_function; also after exit() and a fatal error) or whenever 1 MiB is waiting; SIGKILL, SIGTERM without a pcntl handler, and a crash of PHP itself lose what waits. Where pcntl_fork exists, each call compares the pid (one cheap getpid) so a forked child never sends its parent's events. Needs PHP 7.4+ and ext-json (built in since PHP 8).",
			"After 10,000 events from one location in one process (one request under php-fpm; AGENT_DEBUG_MODE_MAX_PER_LOCATION, or the number in the import line) the location sends nothing more; an agentDebugHeldBack record with the count held back so far is written at the first call held back (with what is queued), then at most once a second while it grows, and at shutdown (a running total), so a killed program has reported at least that. AGENT_DEBUG_MODE_APPEND_PATH, when set (debug-mode reproduce sets it), wins over the Append Path in the import line. The program must run as your user to read the helper and write the Append Path.",
		}})
}
