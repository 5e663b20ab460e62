package templates

func init() {
	register(language{id: "typescript", display: "TypeScript", ext: "ts", comment: "//", aliases: []string{"ts"},
		ingests: []string{"http"}, encoding: NativeJSON, helperPlacement: "top-level", verifiedLive: true,
		notes: []string{
			"One helper per program: paste it once at the top level of the entry module (it installs itself on globalThis and reuses an existing installation), or save it as agentLog.ts with `export { agentLog };` appended and add `import { agentLog } from \"./agentLog\";` (in its own region) to each instrumented module.",
			"Compiles under tsc --strict with lib ES2015 or later and needs neither DOM nor @types/node typings; runs on Node 18+ (global fetch) and in browsers.",
			"Events are queued and sent in the background in batches, one request at a time; pending events are sent when Node's event loop empties. process.exit() drops anything still queued, so let the program end on its own while reproducing. An unreachable service is given up on after 2 s and the queue is dropped.",
		}})
}
