package templates

func init() {
	register(language{id: "php", display: "PHP", ext: "php", comment: "//",
		ingests: []string{"file"}, encoding: NativeJSON, helperPlacement: "top-level", verifiedLive: true,
		notes: []string{
			"One helper per program: in an entry script without a namespace line, paste it at top level after `<?php` (and after declare(strict_types=1) if present), before the first call runs; it defines the global function agent_log once (guarded by function_exists), so every included file can call it. In namespaced code or with several entry points, paste it into its own file agent_debug_log.php (`<?php` plus the helper, no namespace line) and `require_once` it (in its own region) from each entry point; calls from namespaced code fall back to the global function.",
			"Pass data as an arrow function (as the call template does: `fn () => ...` captures variables by value) so building the value happens inside the helper's guard; exceptions and errors become agentDebugDataError. PHP notices inside the expression stay the program's own (they are not exceptions unless the program's error handler makes them so).",
			"Each event is one fwrite on an append-mode ('ab', O_APPEND) handle, so forked workers and concurrent requests never interleave lines. Needs PHP 7.4+ (arrow functions) and ext-json (built in since PHP 8).",
		}})
}
