// #region agent log helper
const agentLog = (() => { try { return (globalThis.process?.getBuiltinModule?.("node:module")?.createRequire("/") ?? require)("__HELPER_PATH__").bind("__APPEND_PATH__", __MAX_PER_LOCATION__); } catch { return () => {}; } })(); // no helper file: probes do nothing
// #endregion
