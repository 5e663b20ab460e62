export function f(x) {
  // #region agent log
  agentLog("H1", "broken.js:3", "x", { x });
  return x;
}
