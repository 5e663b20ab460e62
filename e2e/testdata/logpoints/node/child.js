'use strict';
const n = Number(process.argv[2]);
for (let i = 0; i < n; i++) {
  console.log('child', i); // LP:child {i, argv: process.argv.slice(2)}
}
