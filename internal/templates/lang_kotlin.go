package templates

func init() {
	register(language{id: "kotlin", display: "Kotlin", ext: "kt", comment: "//", aliases: []string{"kt"},
		ingests: []string{"file"}, encoding: NativeJSON, helperPlacement: "top-level", verifiedLive: true,
		notes: []string{
			"Top level means outside any class, after the package and import lines: the helper uses fully qualified names, so it needs no imports of its own and never clashes with yours.",
			"One helper per program: paste it once into one file (for several files, a new AgentDebugLog.kt with the package line of your choice). Files of the same package call agentLog directly; files of other packages add `import <that.package>.agentLog` in its own region. A second copy in the same package fails to compile (conflicting agentLog), so paste it only once.",
			"Pass data in the trailing lambda (as the call template does) so building the value happens inside the helper's guard and can never throw into the program. Maps become objects, lists, sets and arrays become arrays; other objects become \"<unserializable ClassName>\", so pass their fields instead.",
			"Each event is one write of the whole line through FileOutputStream in append mode, so threads and processes never interleave lines. Standard library only; compiles with Kotlin 1.3 and current Kotlin 2.x.",
		}})
}
