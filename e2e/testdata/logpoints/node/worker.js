'use strict';
const { parentPort, workerData } = require('worker_threads');
let acc = 0;
for (let i = 0; i < workerData; i++) {
  acc += i; // LP:worker {i, acc}
}
parentPort.postMessage(acc);
