'use strict';
// The functions main.js calls, each with a logpoint of one kind.
function compute(x) {
  const doubled = x * 2; // LP:function {x}
  return doubled + 1;
}

class Account {
  constructor(balance) {
    this.balance = balance;
  }

  withdraw(amount) {
    const before = this.balance; // LP:method {amount, before: this.balance}
    this.balance -= amount;
    return before - this.balance;
  }
}

function makeCounter(step) {
  let count = 0;
  return function next() {
    count += step; // LP:closure {count, step}
    return count;
  };
}

function sumSquares(items) {
  let total = 0;
  for (const x of items) {
    total += x * x; // LP:loop {x, total, n: items.length}
  }
  return total;
}

async function later(n) {
  await null;
  const got = n * 10; // LP:async {n}
  return got;
}

function fail(x) {
  return x; // LP:throws {bad: x.nope.deeper}
}

function boom() {
  throw new Error('boom on purpose'); // LP:boom
}

function neverCalled() {
  return 42; // LP:neverhit
}

module.exports = { compute, Account, makeCounter, sumSquares, later, fail, boom, neverCalled }; // LP:moduletop {keys: Object.keys(exports).length}
