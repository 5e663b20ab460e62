// @HELPER@

// Built with --lib es2020 only (no DOM, no @types/node), so console is reached
// through a typed view of globalThis.
const out = (globalThis as unknown as { console: { log(s: string): void } }).console;

async function main(): Promise<void> {
  // @CALL:nested@
  // @CALL:strings@
  // @CALL:scalars@
  // @CALL:oversize@
  // @CALL:unserializable@
  // @CALL:throws@
  // @CALL:secret@
  // Node has one thread: four async workers interleave instead.
  await Promise.all([0, 1, 2, 3].map(async (t: number) => {
    for (let i = 0; i < 25; i++) {
      // @CALL:thread@
      await null;
    }
  }));
  out.log("program done");
}

void main();

export {}; // a module, as in most TypeScript projects
