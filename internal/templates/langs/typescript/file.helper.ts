// #region agent log
type AgentLog = (hypothesisId: string, location: string, message: string, data?: () => unknown) => void;
const agentLog: AgentLog = (globalThis as unknown as { agentLog?: AgentLog }).agentLog ??
  ((globalThis as unknown as { agentLog?: AgentLog }).agentLog = (() => {
    // Typed views of Node's process and fs: needs no @types/node typings.
    type Fs = { appendFileSync(path: string, data: string, options: { mode: number }): void };
    const g = globalThis as unknown as { process?: { getBuiltinModule?: (id: string) => unknown } };
    const path = "__APPEND_PATH__", maxData = 16000, fsModule = "node:fs";
    let fs: Fs | null = null, pending: string[] | null = null; // pending: events logged while node:fs loads (ES modules on Node < 20.16)
    try { // synchronously where Node allows, so every event survives process.exit() and crashes
      // @ts-ignore -- `require` exists in CommonJS only; ignoring it keeps @types/node optional
      fs = (g.process?.getBuiltinModule?.(fsModule) ?? (typeof require === "function" ? require("node:fs") : null)) as Fs | null;
    } catch { /* not Node */ }
    const write = (line: string): void => {
      try { fs!.appendFileSync(path, line, { mode: 0o600 }); } // O_APPEND, one write of the whole line: never interleaved
      catch { /* unwritable: this event is lost, never the program */ }
    };
    if (!fs) {
      pending = [];
      import(fsModule).then((m: Fs) => { fs = m; pending!.forEach(write); pending = null; }, () => { pending = null; });
    }
    const record = (hypothesisId: string, location: string, message: string, data: string): string =>
      `{"hypothesisId":${JSON.stringify(String(hypothesisId))},"location":${JSON.stringify(String(location))},"message":${JSON.stringify(String(message))},"data":${data},"timestamp":${Date.now()}}`;
    const serialize = (value: unknown): string => {
      const seen = new WeakSet<object>();
      try {
        const text: string | undefined = JSON.stringify(value, (_key: string, v: unknown) => {
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
    return (hypothesisId: string, location: string, message: string, data?: () => unknown): void => {
      try {
        let value: unknown = null;
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
