package templates

func init() {
	register(language{id: "kotlin", display: "Kotlin", ext: "kt", comment: "//", aliases: []string{"kt"},
		ingests: []string{"file"}, encoding: NativeJSON, helperPlacement: "top-level", verifiedLive: true,
		notes: []string{
			"Top level means outside any class, after the package and import lines: the helper uses fully qualified names, so it needs no imports of its own and never clashes with yours.",
			"One helper per program: paste it once into one file (for several files, a new AgentDebugLog.kt with the package line of your choice). Files of the same package call agentLog directly; files of other packages add `import <that.package>.agentLog` in its own region. A second copy in the same package fails to compile (conflicting agentLog), so paste it only once.",
			"The helper fills location itself: the caller's package path, file name and line (com/acme/Cart.kt:42; the service stores the one file under the project root that path ends in, so keep files in folders named like their package, as usual). agentLog(\"H1\", \"message\", \"path:line\") { … } names another place.",
			"Pass data in the trailing lambda (as the call template does) so building the value happens inside the helper's guard and can never throw into the program (a Java method declared throws IOException included). Each lambda's class names its call site, so past the cap a call is a table read and an add to a counter of the calling thread's own, and the lambda does not run (once C2 has compiled the caller, it is not even allocated). Maps become objects, lists, sets and arrays become arrays; other objects become \"<unserializable ClassName>\", so pass their fields instead.",
			"A call serializes the event and appends it to an in-memory buffer under the helper's own lock (held for one append, never a lock of the program's, no system call); a daemon thread writes it every 20 ms, a call that finds 1 MiB waiting writes it itself, and a shutdown hook writes the rest at exit (normal end, exitProcess, SIGINT and SIGTERM; not SIGKILL). After 10,000 events from one call site in one process (AGENT_DEBUG_MODE_MAX_PER_LOCATION) the writer sends an agentDebugHeldBack record with the count held back so far when the cap is first reached and again whenever it grew (a running total), so a killed program has reported it too. AGENT_DEBUG_MODE_APPEND_PATH, when set (debug-mode reproduce sets it), wins over the Append Path in the helper. Standard library only; compiles with Kotlin 1.3 and current Kotlin 2.x.",
		}})
}
