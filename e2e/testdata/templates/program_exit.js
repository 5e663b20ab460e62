// @HELPER@

// The program ends with process.exit(0) right after its last call: every
// event must already be in the Append Path by then.
// @CALL:nested@
// @CALL:strings@
// @CALL:scalars@
// @CALL:oversize@
// @CALL:unserializable@
// @CALL:throws@
// @CALL:secret@
console.log("program done");
// JavaScript has one thread: four interleaved workers, all synchronous.
for (let i = 0; i < 25; i++) {
  for (const t of [0, 1, 2, 3]) {
    // @CALL:thread@
  }
}
process.exit(0);
