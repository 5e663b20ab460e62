// #region agent log
const agentLog: (hypothesisId: string, message: string, data?: () => unknown, location?: string) => void = (() => { try { return (globalThis as any).process.getBuiltinModule("node:module").createRequire("/")("__HELPER_PATH__").bind("__APPEND_PATH__", 10000); } catch { return () => {}; } })(); // no helper file: probes do nothing
// #endregion
