// #region agent log
import { agentLog } from "./agent_debug_log.mjs";
// #endregion
