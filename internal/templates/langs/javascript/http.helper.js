// #region agent log
const agentLog = globalThis.agentLog ?? (globalThis.agentLog = (() => {
  const url = "__INGEST_URL__", maxData = 16000, maxQueued = 10000;
  const queue = [];
  let sending = null, dropped = 0;
  const serialize = (value) => {
    const seen = new WeakSet();
    try {
      const text = JSON.stringify(value, (key, v) => {
        if (typeof v === "bigint") return v.toString();
        if (typeof v === "function" || typeof v === "symbol") return `<unserializable ${typeof v}>`;
        if (typeof v === "number" && !Number.isFinite(v)) return String(v);
        if (v && typeof v === "object") {
          if (seen.has(v)) return "<unserializable cycle>";
          seen.add(v);
        }
        return v;
      });
      return text === undefined ? "null" : text;
    } catch (e) {
      return JSON.stringify({ agentDebugUnserializable: String(e).slice(0, 200) });
    }
  };
  const flush = () => {
    if (sending || queue.length === 0) return sending;
    const body = queue.splice(0, 400).join("\n") + "\n";
    sending = fetch(url, {
      method: "POST", body, keepalive: body.length < 60000,
      headers: { "Content-Type": "application/x-ndjson" },
      signal: typeof AbortSignal.timeout === "function" ? AbortSignal.timeout(2000) : undefined,
    }).catch(() => {}).finally(() => { sending = null; if (queue.length) flush(); });
    return sending;
  };
  if (typeof process === "object" && typeof process.on === "function") process.on("beforeExit", flush);
  return (hypothesisId, location, message, data) => {
    try {
      if (typeof data === "function") {
        try { data = data(); } catch (e) { data = { agentDebugDataError: String(e).slice(0, 200) }; }
      }
      let text = serialize(data);
      if (text.length > maxData) text = JSON.stringify({ agentDebugTruncated: true, bytes: text.length, preview: text.slice(0, 1000) });
      if (queue.length >= maxQueued) { dropped++; return; }
      queue.push(`{"hypothesisId":${JSON.stringify(String(hypothesisId))},"location":${JSON.stringify(String(location))},"message":${JSON.stringify(String(message))},"data":${text},"timestamp":${Date.now()}}`);
      if (!sending) queueMicrotask(flush);
    } catch { /* never break the program */ }
  };
})());
// #endregion
