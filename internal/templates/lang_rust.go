package templates

func init() {
	register(language{id: "rust", display: "Rust", ext: "rs", comment: "//", aliases: []string{"rs"},
		ingests: []string{"file"}, encoding: SerializedJSON, helperPlacement: "top-level", verifiedLive: true,
		notes: []string{
			"One helper per crate: paste the agent_debug_mode module once at the top level of the crate root (main.rs or lib.rs); calls anywhere in the crate reach it as crate::agent_debug_mode::log!. In a workspace, paste it into each instrumented crate. Standard library only; no Cargo changes. Needs Rust 1.82+ (unsafe extern); editions 2018 to 2024.",
			"log! is a macro: it names its own location with file!() and line!() (the path as cargo gives it to rustc, e.g. src/cart.rs; the service stores the one file under the project root that path ends in), and keeps one static per call site, so past the cap a call is one atomic add and the closure does not run. A fourth argument \"path:line\" names another place.",
			"The data closure returns one JSON text (&str or String): serde_json::to_string(&value).unwrap() if the crate already uses serde, otherwise format! with crate::agent_debug_mode::json_string(text) around every string. Never splice an unescaped string into JSON by hand. The closure runs inside catch_unwind, so a panic while building the data becomes an agentDebugDataError (the panic hook still prints its message to stderr; with panic = \"abort\" nothing can catch it). Newlines outside JSON strings are turned into spaces, so pretty-printed JSON is fine.",
			"A call formats the event and appends it to an in-memory queue under the helper's own Mutex (held for one append, never a lock of the program's, no system call); a writer thread started by the first event writes the queue in one append every 20 ms, a call that finds 1 MiB queued writes it itself, and the C library's atexit (std has no exit hook) writes the rest when main returns or std::process::exit runs (not on abort, a panic = \"abort\" crash or a fatal signal, which lose up to 20 ms of events). After 10,000 events from one call site in one process (AGENT_DEBUG_MODE_MAX_PER_LOCATION) one agentDebugHeldBack record at exit says how many were held back. AGENT_DEBUG_MODE_APPEND_PATH, when set (debug-mode reproduce sets it), wins over the Append Path in the helper.",
		}})
}
