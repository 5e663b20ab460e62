package templates

func init() {
	register(language{id: "javascript", display: "JavaScript", ext: "js", comment: "//", aliases: []string{"js", "node", "nodejs"},
		ingests: []string{"http", "file"}, encoding: NativeJSON, helperPlacement: "top-level", verifiedLive: true,
		outside:    map[string]outside{"file": {file: "agent_debug_log.cjs"}},
		moduleFile: map[string]string{"http": "agent_debug_log.mjs"},
		notes: []string{
			"Choose file for Node on this machine: nothing goes into the project but one import line per file, and every event survives process.exit() and crashes. Choose http for browsers, and for a program that cannot reach debug-mode's state directory (another machine or a container).",
			"The helper fills location itself from the caller's stack frame (its file URL or path and line; the service stores it relative to the session's project root, and maps a page's script URL to the file with that path in the project); pass a fourth argument \"path:line\" only to name another place.",
			"A call serializes and queues the event (no lock, no system call); the queue is delivered in batches from the background. After 10,000 events from one location in one process (AGENT_DEBUG_MODE_MAX_PER_LOCATION, or the number the helper is bound with) the location sends nothing more, and an agentDebugHeldBack record with the count held back so far is sent when the cap is first reached and again whenever it grew (a running total, from the background and at exit), so a killed program has reported it too.",
		},
		ingestNotes: map[string][]string{
			"http": {
				"The helper is an ES module of its own: save it as agent_debug_log.mjs beside the code (a browser page loads it with <script type=\"module\">; bundlers and dev servers take it as is) and paste the import region into each module with probes, with the path made relative to that module. `probes --remove --yes` deletes the file once its region is gone.",
				"One request in flight at a time, batches of at most 30 KB in a page. When the page is hidden or closed (visibilitychange, pagehide) everything queued goes out at once as keepalive requests, which outlive the page; browsers carry at most 64 KiB of keepalive bodies at a time (a few hundred events), so a page that logs more than that in its last moment loses the rest. sendBeacon is not used: it cannot send the application/x-ndjson the Ingest URL requires (the service answers the CORS preflight for any origin).",
				"In Node the queue is sent when the event loop empties (beforeExit); process.exit() drops what is still queued. AGENT_DEBUG_MODE_INGEST_URL, when set, wins over the Ingest URL in the helper. In a bundled production build, locations name the bundle: debug the dev server's build, or pass locations.",
			},
			"file": {
				"No helper to paste: debug-mode keeps it outside the project (the helper path above, a CommonJS file written by create and template; the same for every session). Paste the import region once at module top level in each file with probes, ES module or CommonJS: it requires the helper by absolute path, so it works from any folder and working directory, and the helper loads once per process. Needs Node 20.16+ or 22.3+ (process.getBuiltinModule) in ES modules; CommonJS also runs on Node 18. If the helper file is missing, agentLog does nothing.",
				"The queue is written in one append every 20 ms (an unref'd timer, so it never keeps the process alive), whenever 1 MiB is waiting (a loop that never yields), and synchronously at exit: the 'exit' event, which process.exit() and an uncaught exception also emit, and SIGINT, SIGTERM and SIGHUP when the program has no handler of its own. SIGKILL and a crash of Node itself lose up to 20 ms of events. AGENT_DEBUG_MODE_APPEND_PATH, when set (debug-mode reproduce sets it), wins over the Append Path in the import line.",
				"A program run with node --enable-source-maps (or NODE_OPTIONS=--enable-source-maps) reports the original source's file and line through its source map.",
			},
		}})
}
