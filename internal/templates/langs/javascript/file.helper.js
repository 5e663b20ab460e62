// #region agent log
const agentLog = globalThis.agentLog ?? (globalThis.agentLog = (() => {
  const path = "__APPEND_PATH__", maxData = 16000;
  let fs = null, pending = null; // pending: events logged while node:fs loads (ES modules on Node < 20.16)
  try { // synchronously where Node allows, so every event survives process.exit() and crashes
    fs = globalThis.process?.getBuiltinModule?.("node:fs") ?? (typeof require === "function" ? require("node:fs") : null);
  } catch { /* not Node */ }
  const write = (line) => {
    try { fs.appendFileSync(path, line, { mode: 0o600 }); } // O_APPEND, one write of the whole line: never interleaved
    catch { /* unwritable: this event is lost, never the program */ }
  };
  if (!fs) {
    pending = [];
    import("node:fs").then((m) => { fs = m; pending.forEach(write); pending = null; }, () => { pending = null; });
  }
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
  return (hypothesisId, location, message, data) => {
    try {
      let value = data;
      try { if (typeof data === "function") value = data(); } catch (e) { value = { agentDebugDataError: String(e).slice(0, 200) }; }
      let text = serialize(value);
      if (text.length > maxData) text = JSON.stringify({ agentDebugTruncated: true, bytes: text.length, preview: text.slice(0, 1000) });
      const line = record(hypothesisId, location, message, text) + "\n";
      if (!pending) write(line);
      else if (pending.length < 100000) pending.push(line); // bounded: node:fs arrives within a few ticks
    } catch { /* never break the program */ }
  };
})());
// #endregion
