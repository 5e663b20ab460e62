// #region agent log helper
const agentLog: (hypothesisId: string, message: string, data?: () => unknown, location?: string) => void = (() => { try { return (globalThis as any).process.getBuiltinModule("node:module").createRequire("/")("__HELPER_PATH__").bind("__APPEND_PATH__", __MAX_PER_LOCATION__); } catch { return () => {}; } })(); // no helper file: probes do nothing
// #endregion
