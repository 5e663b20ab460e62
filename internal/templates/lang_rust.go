package templates

func init() {
	register(language{id: "rust", display: "Rust", ext: "rs", comment: "//", aliases: []string{"rs"},
		ingests: []string{"file"}, encoding: SerializedJSON, helperPlacement: "top-level", verifiedLive: true,
		notes: []string{
			"One helper per crate: paste the agent_debug_mode module once at the top level of the crate root (main.rs or lib.rs); calls anywhere in the crate reach it as crate::agent_debug_mode. In a workspace, paste it into each instrumented crate. Standard library only; no Cargo changes.",
			"The data closure returns one JSON text (&str or String): serde_json::to_string(&value).unwrap() if the crate already uses serde, otherwise format! with crate::agent_debug_mode::json_string(text) around every string. Never splice an unescaped string into JSON by hand.",
			"The closure runs inside catch_unwind, so a panic while building the data becomes an agentDebugDataError (the panic hook still prints its message to stderr; with panic = \"abort\" nothing can catch it). Newlines outside JSON strings are turned into spaces, so pretty-printed JSON is fine.",
			"Each event is one write of one line to the Append Path, opened once in append mode and kept open, so threads and processes never interleave. Needs Rust 1.70+ (OnceLock).",
		}})
}
