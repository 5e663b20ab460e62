package templates

func init() {
	register(language{id: "javascript", display: "JavaScript", ext: "js", comment: "//", aliases: []string{"js", "node", "nodejs"},
		ingests: []string{"http"}, encoding: NativeJSON, helperPlacement: "top-level", verifiedLive: true,
		notes: []string{
			"One helper per program: paste it once, at the top level of the entry module (it installs itself on globalThis, so other modules call globalThis.agentLog), or in its own module that the others import.",
			"Events are queued and sent in the background in batches, one request at a time; pending events are sent when Node's event loop empties. process.exit() drops anything still queued, so let the program end on its own while reproducing.",
			"Works in browsers too: the Ingest URL accepts cross-origin posts from pages under debug.",
		}})
}
