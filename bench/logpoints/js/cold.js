'use strict';
function hot(n) {
  let s = 0;
  for (let i = 0; i < n; i++) {
    s += (i * i) % 7;
  }
  return s;
}
module.exports = { hot };
