// @HELPER@

async function main() {
  // @CALL:nested@
  // @CALL:strings@
  // @CALL:scalars@
  // @CALL:oversize@
  // @CALL:unserializable@
  // @CALL:throws@
  // @CALL:secret@
  // JavaScript has one thread: four async workers interleave instead.
  await Promise.all([0, 1, 2, 3].map(async (t) => {
    for (let i = 0; i < 25; i++) {
      // @CALL:thread@
      await null;
    }
  }));
  console.log("program done");
}

main();
