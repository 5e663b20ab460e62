// @HELPER@

// Built without @types/node, so Node's globals are reached through a typed
// view of globalThis.
const rt = globalThis as unknown as { console: { log(s: string): void }; process: { exit(code: number): never } };

// The program ends with process.exit(0) right after its last call: every
// event must already be in the Append Path by then.
// @CALL:nested@
// @CALL:strings@
// @CALL:scalars@
// @CALL:oversize@
// @CALL:unserializable@
// @CALL:throws@
// @CALL:secret@
rt.console.log("program done");
// Node has one thread: four interleaved workers, all synchronous.
for (let i = 0; i < 25; i++) {
  for (const t of [0, 1, 2, 3]) {
    // @CALL:thread@
  }
}
rt.process.exit(0);

export {}; // a module, as in most TypeScript projects
