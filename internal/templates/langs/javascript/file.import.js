// #region agent log
const agentLog = (() => { try { return (globalThis.process?.getBuiltinModule?.("node:module")?.createRequire("/") ?? require)("__HELPER_PATH__").bind("__APPEND_PATH__", 10000); } catch { return () => {}; } })(); // no helper file: probes do nothing
// #endregion
