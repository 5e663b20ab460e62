// #region agent log helper
// debug-mode probe helper: a module of its own (agent_debug_log.ts) that each file with probes imports.
// For browsers, and for Node, Deno or Bun where debug-mode's state directory is out of reach.
type CallSite = { getFileName(): string | null; getLineNumber(): number | null; getColumnNumber(): number | null }; type Site = { location: string; json: string };
const g = globalThis as unknown as { // typed views of the runtime: needs neither DOM nor @types/node typings
  process?: { env?: Record<string, string | undefined>; pid?: number; on?: (event: string, listener: () => void) => void };
  document?: { visibilityState: string; addEventListener(event: string, listener: () => void): void };
  addEventListener?: (event: string, listener: () => void) => void;
  fetch?: (url: string, init: object) => Promise<unknown>; setInterval: (f: () => void, ms: number) => { unref?: () => void }; // a number in browsers
}, E = Error as unknown as { captureStackTrace?: (o: object, f: Function) => void; prepareStackTrace?: unknown; stackTraceLimit: number };
const env = g.process?.env ?? {}, page = typeof g.document === "object";
const url = env["AGENT_DEBUG_MODE_INGEST_URL"] || "__INGEST_URL__", cap = Number(env["AGENT_DEBUG_MODE_MAX_PER_LOCATION"]) || __MAX_PER_LOCATION__;
const maxData = 16000, maxQueued = 100000, maxBody = page ? 30000 : 1000000; // a page's keepalive requests carry 64 KiB in all
const queue: string[] = [], sent = new Map<string, number>(), held = new Map<string, [string, number, number]>(), sites = new Map<string, Map<number, Site>>(), proc = `${g.process?.pid ?? 0}-${Date.now()}`;
let sending = false, dropped = 0, failed = 0, ticker: { unref?: () => void } | null = null; // one batch in flight at a time; when the last one failed
const serialize = (value: unknown): string => {
  const seen = new WeakSet<object>();
  try {
    const text: string | undefined = JSON.stringify(value, (_key: string, v: unknown) => {
      if (typeof v === "bigint") return v.toString();
      if (typeof v === "function" || typeof v === "symbol") return `<unserializable ${typeof v}>`;
      if (typeof v === "number" && !Number.isFinite(v)) return String(v);
      if (v !== null && typeof v === "object") { if (seen.has(v)) return "<unserializable cycle>"; seen.add(v); }
      return v;
    });
    return text === undefined ? "null" : text;
  } catch (e) { return JSON.stringify({ agentDebugUnserializable: String(e).slice(0, 200) }); }
};
const take = (): string => { // as many queued events as fit in one body
  let n = 0, size = 0;
  while (n < queue.length && (n === 0 || size + queue[n]!.length < maxBody)) size += queue[n++]!.length + 1;
  return queue.splice(0, n).join("\n") + "\n";
};
const post = (body: string): Promise<unknown> => g.fetch!(url, { method: "POST", body, keepalive: body.length < 60000, headers: { "Content-Type": "application/x-ndjson" } });
const send = (): void => {
  report(); if (queue.length === 0 || typeof g.fetch !== "function") { sending = false; return; }
  const fail = (): void => { sending = false; if (page) failed = Date.now(); else queue.length = 0; }; // a page keeps its queue for pagehide; Node drops it
  try { post(take()).then(send, fail); } catch { fail(); } };
const last = (): void => { // the held-back counts, then everything queued, as keepalive requests that outlive the page
  if (dropped) queue.push(`{"hypothesisId":"agentDebug","location":"agentLog","message":"events dropped: queue full","data":{"agentDebugDropped":${dropped}},"timestamp":${Date.now()}}`), dropped = 0; report(); };
const report = (): void => { // each capped location's held-back count when it grew: a running total, the service keeps the largest
  for (const [location, h] of held) if (h[1] !== h[2]) h[2] = h[1], queue.push(JSON.stringify({ agentDebugHeldBack: { hypothesisId: h[0], location, count: h[1], cap, process: proc } })); };
const kick = (): void => { if (!sending && Date.now() - failed > 1000) { sending = true; Promise.resolve().then(send); } }; // after the current task: off the hot path
if (page) {
  const close = (): void => { last(); while (queue.length) try { post(take()).catch(() => {}); } catch { queue.length = 0; } };
  g.addEventListener?.("pagehide", close); g.document!.addEventListener("visibilitychange", () => { if (g.document!.visibilityState === "hidden") close(); });
} else if (typeof g.process?.on === "function") g.process.on("beforeExit", () => { last(); if (!sending && queue.length) { sending = true; send(); } });
const place = (location: string): Site => ({ location, json: JSON.stringify(location) });
const caller = (): Site => { // the caller's URL:line (a page's script URL; the service maps it into the project)
  if (typeof E.captureStackTrace === "function") { // V8: Chrome, Edge, Node
    const prepare = E.prepareStackTrace, limit = E.stackTraceLimit, holder: { stack?: CallSite[] } = {};
    try {
      E.prepareStackTrace = (_: unknown, calls: CallSite[]) => calls, E.stackTraceLimit = 1;
      E.captureStackTrace(holder, agentLog);
      const c = holder.stack![0]!, name = String(c.getFileName()), pos = (c.getLineNumber() ?? 0) * 65536 + (c.getColumnNumber() ?? 0);
      const inFile = sites.get(name) ?? (sites.size < 10000 ? sites.set(name, new Map()).get(name)! : new Map<number, Site>());
      return inFile.get(pos) ?? inFile.set(pos, place(`${name}:${c.getLineNumber()}`)).get(pos)!; // remembered per call site
    } finally { E.prepareStackTrace = prepare; E.stackTraceLimit = limit; }
  }
  const frame = (new Error().stack ?? "").split("\n").filter((l) => /:\d+:\d+\)?$/.test(l))[1] ?? ""; // Firefox, Safari: [0] is agentLog
  const m = /([^@\s(]+):(\d+):\d+\)?$/.exec(frame);
  return place(m ? `${m[1]}:${m[2]}` : "unknown:1");
};
// agentLog(hypothesisId, message, () => data, location?): queues one event. Never throws.
export function agentLog(hypothesisId: string, message: string, data?: () => unknown, location?: string): void {
  try {
    const site = location === undefined ? caller() : place(String(location));
    const n = sent.get(site.location) ?? 0;
    if (n >= cap) { const h = held.get(site.location) ?? [String(hypothesisId), 0, 0]; if (h[1]++ === 0) held.set(site.location, h), (ticker ??= g.setInterval(kick, 1000)).unref?.(), kick(); return; } // held back: the first at once, then the count every second
    sent.set(site.location, n + 1);
    let value: unknown = null;
    try { if (typeof data === "function") value = data(); } catch (e) { value = { agentDebugDataError: String(e).slice(0, 200) }; }
    let text = serialize(value);
    if (text.length > maxData) text = JSON.stringify({ agentDebugTruncated: true, bytes: text.length, preview: text.slice(0, 1000) });
    if (queue.length >= maxQueued) { dropped++; return; } // the service is not keeping up: counted, reported
    queue.push(`{"hypothesisId":${JSON.stringify(String(hypothesisId))},"location":${site.json},"message":${JSON.stringify(String(message))},"data":${text},"timestamp":${Date.now()}}`);
    kick();
  } catch { /* never break the program */ }
}
// #endregion
