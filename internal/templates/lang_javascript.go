package templates

func init() {
	register(language{id: "javascript", display: "JavaScript", ext: "js", comment: "//", aliases: []string{"js", "node", "nodejs"},
		ingests: []string{"http", "file"}, encoding: NativeJSON, helperPlacement: "top-level", verifiedLive: true,
		notes: []string{
			"One helper per program: paste it once, at the top level of the entry module (it installs itself on globalThis and reuses an existing installation, so other modules call globalThis.agentLog), or save it as a module of its own that the others import (each line in its own region): agentLog.mjs with `export { agentLog };` appended and `import { agentLog } from \"./agentLog.mjs\";` in ES modules, or agentLog.cjs with `module.exports = { agentLog };` appended and `const { agentLog } = require(\"./agentLog.cjs\");` in CommonJS (ES modules can import that one too).",
			"Choose file for Node programs that may call process.exit() or crash: each event is appended before the call returns, so nothing is pending when the program ends. Choose http for browsers, and for a program that cannot reach the Append Path (another machine or container).",
		},
		ingestNotes: map[string][]string{
			"http": {
				"Events are queued and sent in the background in batches, one request at a time; pending events are sent when Node's event loop empties. process.exit() drops anything still queued, so let the program end on its own while reproducing.",
				"Works in browsers too: the Ingest URL accepts cross-origin posts from pages under debug.",
			},
			"file": {
				"Node 18 or later. Each event is one synchronous append of the whole line (open with O_APPEND, one write, close: a few microseconds), so lines from threads, workers and processes never interleave.",
				"node:fs is loaded synchronously with process.getBuiltinModule (Node 20.16+, 22.3+) or require (CommonJS). In an ES module on Node 18 to 20.15 it comes from import(\"node:fs\") a few ticks later: events logged before then are held and written when it arrives, and lost only if the program calls process.exit() before the event loop turns once.",
			},
		}})
}
