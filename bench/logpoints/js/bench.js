'use strict';
// One benchmark in one process: prints {"seconds": best of repeat runs}.
// Between timed runs it waits for the hook's batch timer, so no run is
// timed while another's events wait to be written.
const [what, nText, repeatText] = process.argv.slice(2);
const n = Number(nText);
const repeat = Number(repeatText);

function pick() {
  switch (what) {
    case 'cold': return require('./cold').hot;
    case 'warm': return require('./warm').hot;
    case 'with_data':
    case 'no_data':
    case 'plain': return require('./hits')[what];
    default: throw new Error('unknown benchmark ' + what);
  }
}

async function main() {
  const fn = pick();
  let best = Infinity;
  for (let r = 0; r < repeat; r++) {
    await new Promise((resolve) => setTimeout(resolve, 120));
    const t = process.hrtime.bigint();
    fn(n);
    const s = Number(process.hrtime.bigint() - t) / 1e9;
    if (s < best) best = s;
  }
  console.log(JSON.stringify({ seconds: best })); // LOGPOINT-MAIN: the main script has a logpoint too
}

main();
