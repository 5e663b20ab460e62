package templates

func init() {
	register(language{id: "typescript", display: "TypeScript", ext: "ts", comment: "//", aliases: []string{"ts"},
		ingests: []string{"http", "file"}, encoding: NativeJSON, helperPlacement: "top-level", verifiedLive: true,
		notes: []string{
			"One helper per program: paste it once at the top level of the entry module (it installs itself on globalThis and reuses an existing installation), or save it as agentLog.ts with `export { agentLog };` appended and add `import { agentLog } from \"./agentLog\";` (in its own region) to each instrumented module.",
			"Choose file for Node programs that may call process.exit() or crash: each event is appended before the call returns, so nothing is pending when the program ends. Choose http for browsers, and for a program that cannot reach the Append Path (another machine or container).",
		},
		ingestNotes: map[string][]string{
			"http": {
				"Compiles under tsc --strict with lib ES2015 or later and needs neither DOM nor @types/node typings; runs on Node 18+ (global fetch) and in browsers.",
				"Events are queued and sent in the background in batches, one request at a time; pending events are sent when Node's event loop empties. process.exit() drops anything still queued, so let the program end on its own while reproducing. An unreachable service is given up on after 2 s and the queue is dropped.",
			},
			"file": {
				"Compiles under tsc --strict with lib ES2015 or later and any --module that allows import() (commonjs, es2020 or later, node16, nodenext); needs neither DOM nor @types/node typings (the one `// @ts-ignore` line lets it name CommonJS's require without them). Runs on Node 18 or later.",
				"Each event is one synchronous append of the whole line (open with O_APPEND, one write, close: a few microseconds), so lines from threads, workers and processes never interleave.",
				"node:fs is loaded synchronously with process.getBuiltinModule (Node 20.16+, 22.3+) or require (CommonJS output). In ES module output on Node 18 to 20.15 it comes from import(\"node:fs\") a few ticks later: events logged before then are held and written when it arrives, and lost only if the program calls process.exit() before the event loop turns once.",
			},
		}})
}
