package templates

func init() {
	register(language{id: "swift", display: "Swift", ext: "swift", comment: "//",
		ingests: []string{"file"}, encoding: NativeJSON, helperPlacement: "top-level", verifiedLive: false,
		notes: []string{
			"Top level means file scope, outside any type. The helper brings its own `import Foundation` (a repeated import is harmless). Needs Swift 5.10+ (#filePath, nonisolated(unsafe)).",
			"One helper per module: paste it once into any file of the module (or a new AgentDebugLog.swift); every file of that module calls agentLog. Another module needs its own copy.",
			"The helper fills location itself from #filePath and #line, default arguments filled in at each call (the source path as the compiler saw it; the service stores it relative to the session's project root); agentLog(\"H1\", \"message\", location: \"path:line\") { … } names another place.",
			"Pass data in the trailing closure (as the call template does) so it is built inside the helper's guard, and only while the call site is under its cap: an error it throws becomes agentDebugDataError (write `try` inside the closure). Swift cannot catch traps (a nil force-unwrap, an out-of-range index), so keep data expressions trap-free.",
			"Mixed literals need their type spelled out, e.g. `[\"n\": count, \"ok\": flag] as [String: Any]`, and nil inside a collection needs an optional element type (`as [Any?]`). Dictionaries become objects, arrays and sets arrays, other objects \"<unserializable Type>\"; JSONSerialization writes the text.",
			"A call counts its site and appends the serialized event to an in-memory queue under the helper's own NSLock (held for one update, never a lock of the program's, no system call); a writer thread writes the queue in one O_APPEND write(2) every 20 ms, a call that finds 1 MiB queued writes it itself, and atexit writes the rest (not on a trap or a fatal signal). After 10,000 events from one location in one process (AGENT_DEBUG_MODE_MAX_PER_LOCATION) a call is one locked dictionary update, and the writer sends an agentDebugHeldBack record with the count held back so far when the cap is first reached and again whenever it grew (a running total), so a killed program has reported it too. AGENT_DEBUG_MODE_APPEND_PATH, when set, wins over the Append Path in the helper. Linux and Apple platforms.",
		}})
}
