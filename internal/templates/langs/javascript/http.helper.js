// #region agent log
const agentLog = globalThis.agentLog ?? (globalThis.agentLog = (() => {
  const url = "__INGEST_URL__", maxData = 16000, maxQueued = 100000, maxBody = 1000000;
  const queue = [];
  let sending = false, dropped = 0; // one batch in flight at a time
  const record = (hypothesisId, location, message, data) =>
    `{"hypothesisId":${JSON.stringify(String(hypothesisId))},"location":${JSON.stringify(String(location))},"message":${JSON.stringify(String(message))},"data":${data},"timestamp":${Date.now()}}`;
  const serialize = (value) => {
    const seen = new WeakSet();
    try {
      const text = JSON.stringify(value, (key, v) => {
        if (typeof v === "bigint") return v.toString();
        if (typeof v === "function" || typeof v === "symbol") return `<unserializable ${typeof v}>`;
        if (typeof v === "number" && !Number.isFinite(v)) return String(v);
        if (v !== null && typeof v === "object") {
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
  const send = () => {
    if (dropped) { queue.push(record("agentDebug", "agentLog", "events dropped: queue full", `{"agentDebugDropped":${dropped}}`)); dropped = 0; }
    if (queue.length === 0 || typeof fetch !== "function") { queue.length = 0; sending = false; return; }
    let n = 0, size = 0; // as many queued events as fit in about 1 MB
    while (n < queue.length && (n === 0 || size + queue[n].length < maxBody)) size += queue[n++].length + 1;
    const body = queue.splice(0, n).join("\n") + "\n";
    const giveUp = () => { queue.length = 0; sending = false; }; // service unreachable: drop, never stall
    try {
      fetch(url, {
        method: "POST", body, keepalive: body.length < 60000,
        headers: { "Content-Type": "application/x-ndjson" },
        signal: typeof AbortSignal.timeout === "function" ? AbortSignal.timeout(2000) : undefined,
      }).then(send, giveUp);
    } catch { giveUp(); }
  };
  const start = () => { if (!sending && queue.length) { sending = true; send(); } };
  if (typeof process === "object" && typeof process.on === "function") process.on("beforeExit", start);
  return (hypothesisId, location, message, data) => {
    try {
      let value = data;
      try { if (typeof data === "function") value = data(); } catch (e) { value = { agentDebugDataError: String(e).slice(0, 200) }; }
      let text = serialize(value);
      if (text.length > maxData) text = JSON.stringify({ agentDebugTruncated: true, bytes: text.length, preview: text.slice(0, 1000) });
      if (queue.length >= maxQueued) { dropped++; return; } // the service is not keeping up: counted, reported
      queue.push(record(hypothesisId, location, message, text));
      if (!sending) { sending = true; Promise.resolve().then(send); }
    } catch { /* never break the program */ }
  };
})());
// #endregion
