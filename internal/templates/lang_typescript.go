package templates

func init() {
	register(language{id: "typescript", display: "TypeScript", ext: "ts", comment: "//", aliases: []string{"ts"},
		ingests: []string{"http", "file"}, encoding: NativeJSON, helperPlacement: "top-level", verifiedLive: true,
		outside:    map[string]outside{"file": {file: "agent_debug_log.cjs", from: "javascript"}},
		moduleFile: map[string]string{"http": "agent_debug_log.ts"},
		notes: []string{
			"Choose file for Node on this machine: nothing goes into the project but one import line per file, and every event survives process.exit() and crashes. Choose http for browsers, and for a program that cannot reach debug-mode's state directory (another machine or a container).",
			"The helper fills location itself from the caller's stack frame. Compiled TypeScript runs as JavaScript, so a location names the compiled .js file and line unless the runtime maps it back: compile with --sourceMap and run with node --enable-source-maps (or NODE_OPTIONS=--enable-source-maps; tsx and ts-node map too), and events name the .ts line that the region is in. Pass a fourth argument \"path:line\" only to name another place.",
			"A call serializes and queues the event (no lock, no system call); the queue is delivered in batches from the background. After 10,000 events from one location in one process (AGENT_DEBUG_MODE_MAX_PER_LOCATION, or the number the helper is bound with) the location sends nothing more, and an agentDebugHeldBack record with the count held back so far is sent when the cap is first reached and again whenever it grew (a running total, from the background and at exit), so a killed program has reported it too.",
		},
		ingestNotes: map[string][]string{
			"http": {
				"The helper is a module of its own: save it as agent_debug_log.ts beside the code and paste the import region into each module with probes, with the path made relative to that module (\"./agent_debug_log.js\" resolves to the .ts file under tsc's node16, nodenext and bundler resolution and in Vite). It compiles under tsc --strict with lib ES2015 or later and needs neither DOM nor @types/node typings. `probes --remove --yes` deletes the file once its region is gone.",
				"One request in flight at a time, batches of at most 30 KB in a page. When the page is hidden or closed (visibilitychange, pagehide) everything queued goes out at once as keepalive requests, which outlive the page; browsers carry at most 64 KiB of keepalive bodies at a time, so a page that logs more than that in its last moment loses the rest. In Node the queue is sent when the event loop empties (beforeExit); process.exit() drops what is still queued. AGENT_DEBUG_MODE_INGEST_URL, when set, wins over the Ingest URL in the helper.",
			},
			"file": {
				"No helper to paste: debug-mode keeps it outside the project (the helper path above, the JavaScript helper for Node, written by create and template). Paste the import region once at module top level in each .ts file with probes: it compiles under tsc --strict with any --module and needs no typings, requires the helper by absolute path at run time (from any folder and working directory), and the helper loads once per process. Needs Node 20.16+ or 22.3+ (process.getBuiltinModule); if the helper file is missing, agentLog does nothing.",
				"The queue is written in one append every 20 ms (an unref'd timer), whenever 1 MiB is waiting, and synchronously at exit: the 'exit' event, which process.exit() and an uncaught exception also emit, and SIGINT, SIGTERM and SIGHUP when the program has no handler of its own. AGENT_DEBUG_MODE_APPEND_PATH, when set (debug-mode reproduce sets it), wins over the Append Path in the import line.",
			},
		}})
}
