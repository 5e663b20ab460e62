package templates

func init() {
	// ext go.txt: a .go file here would be compiled as part of this module.
	register(language{id: "go", display: "Go", ext: "go.txt", comment: "//", aliases: []string{"golang"},
		ingests: []string{"file"}, encoding: NativeJSON, helperPlacement: "own-file", helperFile: "agent_debug_log.go", verifiedLive: true,
		extraPlaceholders: []Placeholder{{"__PACKAGE_NAME__", "the package of the folder the helper is saved in (template fills it from --package or --dir)"}},
		notes: []string{
			"The helper is a complete file of its own, not a paste: save it as agent_debug_log.go in each package you instrument (one file per package; agentLog is unexported, so it never joins the package's API). template fills in its package clause from --package, else from the .go files of --dir (default: the working directory). The whole file, package clause included, is one region: `probes --remove --yes` empties it. Needs Go 1.22+; standard library only.",
			"Go has no exit hook: add `defer agentLogFlush()` as the first line of main, in a region of its own labelled as the helper's (// #region agent log helper … // #endregion, so probes --session does not count it as a probe that never fired), or at the end of TestMain for tests, so the last batch and the held-back counts are written when main returns. Without it, and on os.Exit, log.Fatal or a signal, up to the last 20 ms of events are lost (the helper installs no signal handler: that would change how the program ends). A helper in another package is flushed by its own agentLogFlush: call it from that package (its TestMain, or a function main defers).",
			"The helper fills location itself with the caller's absolute path and line (the service stores it relative to the session's project root); pass a fourth argument \"path:line\" only to name another place. Pass data inside func() any { return … } (as the call template does): the helper keys each call site by that closure's code, so give every probe its own func literal; building the value runs inside the helper's recover, so a nil dereference or index panic becomes an agentDebugDataError.",
			"A call encodes the event and appends it to an in-memory queue under the helper's own mutex (held for one append, never a lock of the program's, no system call); a timer writes the queue in one append 20 ms after its first event, and a call that finds 1 MiB queued writes it itself. After 10,000 events from one location in one process (AGENT_DEBUG_MODE_MAX_PER_LOCATION) a call costs one table read and one atomic add, and agentLogFlush writes one agentDebugHeldBack record per capped location. AGENT_DEBUG_MODE_APPEND_PATH, when set (debug-mode reproduce sets it), wins over the Append Path in the helper.",
			"Values are encoded with encoding/json (exported struct fields only, unless tagged); a value it cannot encode (a channel, a func, a cycle, NaN) is sent as an agentDebugUnserializable marker.",
		}})
}
