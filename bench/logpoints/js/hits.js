'use strict';
function withData(n) {
  let x = 0;
  for (let i = 0; i < n; i++) {
    x = i; // LOGPOINT-DATA: ({i})
  }
  return x;
}

function noData(n) {
  let x = 0;
  for (let i = 0; i < n; i++) {
    x = i; // LOGPOINT-NODATA
  }
  return x;
}

function plain(n) {
  let x = 0;
  for (let i = 0; i < n; i++) {
    x = i;
  }
  return x;
}
module.exports = { with_data: withData, no_data: noData, plain };
