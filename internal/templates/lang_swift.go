package templates

func init() {
	register(language{id: "swift", display: "Swift", ext: "swift", comment: "//",
		ingests: []string{"file"}, encoding: NativeJSON, helperPlacement: "top-level", verifiedLive: false,
		notes: []string{
			"Top level means file scope, outside any type. The helper brings its own `import Foundation` (a repeated import is harmless).",
			"One helper per module: paste it once into any file of the module (or a new AgentDebugLog.swift); every file of that module calls agentLog. Another module needs its own copy.",
			"Pass data in the trailing closure (as the call template does) so it is built inside the helper's guard: an error it throws becomes agentDebugDataError (write `try` inside the closure). Swift cannot catch traps (a nil force-unwrap, an out-of-range index), so keep data expressions trap-free.",
			"Mixed literals need their type spelled out, e.g. `[\"n\": count, \"ok\": flag] as [String: Any]`, and nil inside a collection needs an optional element type (`as [Any?]`). Dictionaries become objects, arrays and sets arrays, other objects \"<unserializable Type>\"; JSONSerialization writes the text.",
			"Each event is one write(2) of the whole line on an O_APPEND descriptor, so threads and processes never interleave lines. Linux and Apple platforms.",
		}})
}
