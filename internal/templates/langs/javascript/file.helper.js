// debug-mode probe helper for Node, written by debug-mode (the same for every session). Each
// instrumented module loads it once per process with its import line. Node's standard library only.
"use strict";
const fs = require("node:fs"), { fileURLToPath } = require("node:url"), { findSourceMap } = require("node:module");
const maxData = 16000, maxQueued = 1 << 20; // bytes of data per event; queued bytes written at once
const queue = [], sites = new Map(), sent = new Map(), held = new Map();
const conf = { path: null, cap: 10000, process: `${process.pid}-${Date.now()}` };
let queued = 0, timer = null;
const flush = () => { // one synchronous append per batch, each capped location's held-back count (when it grew) after the events
  for (const [location, h] of held) if (h[1] !== h[2]) h[2] = h[1], queue.push(JSON.stringify({ agentDebugHeldBack: { hypothesisId: h[0], location, count: h[1], cap: conf.cap, process: conf.process } }) + "\n");
  const lines = queue.splice(0);
  clearTimeout(timer), timer = null, queued = 0;
  if (lines.length) try { fs.appendFileSync(conf.path, lines.join(""), { mode: 0o600 }); } catch { /* lost, never the program */ }
};
const atExit = flush; // nothing queued is lost at exit
process.on("exit", atExit); // normal end, process.exit() and an uncaught exception
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  try { // only where the program has no handler of its own: flush, then end by the signal
    if (process.listenerCount(signal) === 0) process.once(signal, () => { atExit(); if (process.listenerCount(signal) === 0) process.kill(process.pid, signal); });
  } catch { /* a worker thread: no signals */ }
}
// The caller's file:line, through the source map where Node has one (node --enable-source-maps),
// remembered per call site (file, then line and column) with its JSON text.
const caller = () => {
  const prepare = Error.prepareStackTrace, limit = Error.stackTraceLimit, holder = {};
  try {
    Error.prepareStackTrace = (_, calls) => calls, Error.stackTraceLimit = 1;
    Error.captureStackTrace(holder, agentLog);
    const call = holder.stack[0], name = call.getFileName() ?? "<anonymous>", pos = call.getLineNumber() * 65536 + call.getColumnNumber();
    const inFile = sites.get(name) ?? (sites.size < 10000 ? sites.set(name, new Map()).get(name) : new Map());
    let site = inFile.get(pos);
    if (site === undefined) {
      let [file, line] = [name, call.getLineNumber()];
      const entry = findSourceMap?.(file)?.findEntry(line - 1, call.getColumnNumber() - 1);
      if (entry?.originalSource) [file, line] = [entry.originalSource, entry.originalLine + 1];
      inFile.set(pos, site = place(`${file.startsWith("file:") ? fileURLToPath(file) : file}:${line}`));
    }
    return site;
  } finally { Error.prepareStackTrace = prepare; Error.stackTraceLimit = limit; }
};
const place = (location) => ({ location, json: JSON.stringify(location) });
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
// agentLog(hypothesisId, message, () => data, location?): queues one event. Never throws.
function agentLog(hypothesisId, message, data, location) {
  try {
    const site = location === undefined ? caller() : place(String(location));
    const n = sent.get(site.location) ?? 0;
    if (n >= conf.cap) { // held back: counted, and the count written from the background (a running total: the service keeps the largest)
      const h = held.get(site.location) ?? [String(hypothesisId), 0, 0]; if (h[1]++ === 0) held.set(site.location, h);
      if (!timer) timer = setTimeout(flush, 20).unref(); return; }
    sent.set(site.location, n + 1);
    let value = data;
    try { if (typeof data === "function") value = data(); } catch (e) { value = { agentDebugDataError: String(e).slice(0, 200) }; }
    let text = serialize(value);
    if (text.length > maxData) text = JSON.stringify({ agentDebugTruncated: true, bytes: text.length, preview: text.slice(0, 1000) });
    const line = `{"hypothesisId":${JSON.stringify(String(hypothesisId))},"location":${site.json},"message":${JSON.stringify(String(message))},"data":${text},"timestamp":${Date.now()}}\n`;
    queue.push(line);
    if ((queued += line.length) > maxQueued) flush(); // a loop that never yields: one write per MiB
    else if (!timer) timer = setTimeout(flush, 20).unref(); // the background writer: never keeps the process alive
  } catch { /* never break the program */ }
}
// bind(appendPath, cap): the first binding in a process says where events go; the environment wins.
exports.bind = (path, cap = 10000) => {
  if (conf.path === null) Object.assign(conf, { path: process.env.AGENT_DEBUG_MODE_APPEND_PATH || path, cap: Number(process.env.AGENT_DEBUG_MODE_MAX_PER_LOCATION) || cap });
  return agentLog;
};
