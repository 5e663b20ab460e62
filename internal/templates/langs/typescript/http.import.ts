// #region agent log
import { agentLog } from "./agent_debug_log.js";
// #endregion
