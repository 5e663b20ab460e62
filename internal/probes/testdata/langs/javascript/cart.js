// #region agent log
function agentLog(h, loc, msg, data) { /* helper */ }
// #endregion

export function total(items) {
  let sum = 0;
  for (const it of items) {
    // #region agent log
    agentLog("H1", "cart.js:9", "item", { price: it.price });
    // #endregion
    sum += it.price;
  }
  //#region agent log H2
  agentLog("H2", "cart.js:14", "sum", { sum });
  //#endregion
  return sum;
}
