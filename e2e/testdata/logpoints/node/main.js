'use strict';
// The main script: every kind of logpoint, a child process, a worker
// thread, an ES module imported later, and each way a run can end.
const path = require('path');
const { execFileSync } = require('child_process');
const { Worker } = require('worker_threads');
const vm = require('vm');
const fs = require('fs');
const lib = require('./lib');
require('./changed');
const mode = process.argv[2] || 'ok'; // LP:top {argv: process.argv.length}

async function main() {
  let sum = 0;
  for (let i = 0; i < 200; i++) sum += lib.compute(i);
  console.log('compute', sum);
  console.log('withdraw', new lib.Account(10).withdraw(4));
  const next = lib.makeCounter(2);
  next();
  console.log('counter', next());
  console.log('sum', lib.sumSquares([1, 2, 3]));
  console.log('later', await lib.later(1), await lib.later(2));
  console.log('fail', lib.fail(5));
  const esm = await import('./later.mjs');
  console.log('esm', esm.shout('hi'));
  process.stdout.write(execFileSync(process.execPath, [path.join(__dirname, 'child.js'), '3'], { encoding: 'utf8' }));
  await new Promise((resolve, reject) => {
    const w = new Worker(path.join(__dirname, 'worker.js'), { workerData: 4 });
    w.on('message', (m) => console.log('worker said', m));
    w.on('error', reject);
    w.on('exit', resolve);
  });
  const sandboxed = path.join(__dirname, 'sandboxed.js');
  vm.runInNewContext(fs.readFileSync(sandboxed, 'utf8'), { console }, { filename: sandboxed });
  console.error('stderr line');
}

main().then(() => {
  if (mode === 'raise') setImmediate(() => lib.boom());
  if (mode === 'exit3') {
    console.log('exiting with 3');
    process.exit(3);
  }
  if (mode === 'reject') Promise.reject(new Error('rejected on purpose'));
  if (mode === 'ok') console.log('done');
});
