// #region agent log helper
// debug-mode probe helper: an ES module of its own (agent_debug_log.mjs) that each file with probes imports.
// For browsers, and for Node, Deno or Bun where debug-mode's state directory is out of reach.
const env = globalThis.process?.env ?? {}, page = typeof document === "object";
const url = env.AGENT_DEBUG_MODE_INGEST_URL || "__INGEST_URL__", cap = Number(env.AGENT_DEBUG_MODE_MAX_PER_LOCATION) || __MAX_PER_LOCATION__;
const maxData = 16000, maxQueued = 100000, maxBody = page ? 30000 : 1000000; // a page's keepalive requests carry 64 KiB in all
const queue = [], sent = new Map(), held = new Map(), sites = new Map(), proc = `${globalThis.process?.pid ?? 0}-${Date.now()}`;
let sending = false, dropped = 0, failed = 0, ticker = null; // one batch in flight at a time; when the last one failed
const serialize = (value) => {
  const seen = new WeakSet();
  try {
    const text = JSON.stringify(value, (key, v) => {
      if (typeof v === "bigint") return v.toString();
      if (typeof v === "function" || typeof v === "symbol") return `<unserializable ${typeof v}>`;
      if (typeof v === "number" && !Number.isFinite(v)) return String(v);
      if (v !== null && typeof v === "object") { if (seen.has(v)) return "<unserializable cycle>"; seen.add(v); }
      return v;
    });
    return text === undefined ? "null" : text;
  } catch (e) { return JSON.stringify({ agentDebugUnserializable: String(e).slice(0, 200) }); }
};
const take = () => { // as many queued events as fit in one body
  let n = 0, size = 0;
  while (n < queue.length && (n === 0 || size + queue[n].length < maxBody)) size += queue[n++].length + 1;
  return queue.splice(0, n).join("\n") + "\n";
};
const post = (body) => fetch(url, { method: "POST", body, keepalive: body.length < 60000, headers: { "Content-Type": "application/x-ndjson" } });
const report = () => { // each capped location's held-back count when it grew: a running total, the service keeps the largest
  for (const [location, h] of held) if (h[1] !== h[2]) h[2] = h[1], queue.push(JSON.stringify({ agentDebugHeldBack: { hypothesisId: h[0], location, count: h[1], cap, process: proc } })); };
const kick = () => { if (!sending && Date.now() - failed > 1000) { sending = true; Promise.resolve().then(send); } }; // after the current task: off the hot path
const send = () => {
  report();
  if (queue.length === 0 || typeof fetch !== "function") { sending = false; return; }
  const fail = () => { sending = false; if (page) failed = Date.now(); else queue.length = 0; }; // a page keeps its queue for pagehide; Node drops it
  try { post(take()).then(send, fail); } catch { fail(); }
};
const last = () => { // the held-back counts, then everything queued, as keepalive requests that outlive the page
  if (dropped) queue.push(`{"hypothesisId":"agentDebug","location":"agentLog","message":"events dropped: queue full","data":{"agentDebugDropped":${dropped}},"timestamp":${Date.now()}}`), dropped = 0;
  report();
};
if (page) {
  const close = () => { last(); while (queue.length) try { post(take()).catch(() => {}); } catch { queue.length = 0; } };
  addEventListener("pagehide", close);
  document.addEventListener("visibilitychange", () => { if (document.visibilityState === "hidden") close(); });
} else if (typeof globalThis.process?.on === "function") globalThis.process.on("beforeExit", () => { last(); if (!sending && queue.length) { sending = true; send(); } });
const place = (location) => ({ location, json: JSON.stringify(location) });
const caller = () => { // the caller's URL:line (a page's script URL; the service maps it into the project)
  if (typeof Error.captureStackTrace === "function") { // V8: Chrome, Edge, Node
    const prepare = Error.prepareStackTrace, limit = Error.stackTraceLimit, holder = {};
    try {
      Error.prepareStackTrace = (_, calls) => calls, Error.stackTraceLimit = 1;
      Error.captureStackTrace(holder, agentLog);
      const c = holder.stack[0], name = String(c.getFileName()), pos = c.getLineNumber() * 65536 + c.getColumnNumber();
      const inFile = sites.get(name) ?? (sites.size < 10000 ? sites.set(name, new Map()).get(name) : new Map());
      return inFile.get(pos) ?? inFile.set(pos, place(`${name}:${c.getLineNumber()}`)).get(pos); // remembered per call site
    } finally { Error.prepareStackTrace = prepare; Error.stackTraceLimit = limit; }
  }
  const frame = (new Error().stack ?? "").split("\n").filter((l) => /:\d+:\d+\)?$/.test(l))[1] ?? ""; // Firefox, Safari: [0] is agentLog
  const m = /([^@\s(]+):(\d+):\d+\)?$/.exec(frame);
  return place(m ? `${m[1]}:${m[2]}` : "unknown:1");
};
// agentLog(hypothesisId, message, () => data, location?): queues one event. Never throws.
export function agentLog(hypothesisId, message, data, location) {
  try {
    const site = location === undefined ? caller() : place(String(location));
    const n = sent.get(site.location) ?? 0;
    if (n >= cap) { const h = held.get(site.location) ?? [String(hypothesisId), 0, 0]; // held back: the first at once, then the count every second
      if (h[1]++ === 0) held.set(site.location, h), (ticker ??= setInterval(kick, 1000)).unref?.(), kick(); return; } // unref: Node may still end
    sent.set(site.location, n + 1);
    let value = data;
    try { if (typeof data === "function") value = data(); } catch (e) { value = { agentDebugDataError: String(e).slice(0, 200) }; }
    let text = serialize(value);
    if (text.length > maxData) text = JSON.stringify({ agentDebugTruncated: true, bytes: text.length, preview: text.slice(0, 1000) });
    if (queue.length >= maxQueued) { dropped++; return; } // the service is not keeping up: counted, reported
    queue.push(`{"hypothesisId":${JSON.stringify(String(hypothesisId))},"location":${site.json},"message":${JSON.stringify(String(message))},"data":${text},"timestamp":${Date.now()}}`);
    kick();
  } catch { /* never break the program */ }
}
// #endregion
