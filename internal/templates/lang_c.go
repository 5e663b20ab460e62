package templates

func init() {
	register(language{id: "c", display: "C", ext: "c", comment: "//", aliases: []string{"c11", "c99"},
		ingests: []string{"file"}, encoding: SerializedJSON, helperPlacement: "file-start", verifiedLive: true,
		notes: []string{
			"Paste the helper at the start of the file, before its first #include but after any feature-test macros (#define _GNU_SOURCE …). For several .c files, save it once as agent_debug_log.h (it has an include guard) and #include \"agent_debug_log.h\" first in each instrumented file: every function is static inline, so nothing clashes at link time and unused ones cause no -Wall -Wextra warnings.",
			"The data argument is one JSON text (const char *). Build it with agent_debug_json, a printf that GCC checks against its arguments: agent_debug_json(\"{\\\"n\\\":%d,\\\"name\\\":%s}\", n, agent_debug_json_string(name)). Put every string through agent_debug_json_string (NULL becomes null); never splice raw text into JSON. The helper frees what these two return at the next agent_debug_log on the same thread, so call sites free nothing.",
			"Needs C11, or C99 with POSIX (-std=gnu99, or _POSIX_C_SOURCE for clock_gettime), and GCC or Clang; safe from any thread, not from signal handlers. A NULL data pointer is sent as an agentDebugUnserializable marker; newlines outside strings become spaces, so pretty-printed JSON (cJSON_Print) is fine; a text that is not valid JSON makes the service reject the event, which status reports.",
		}})
}
