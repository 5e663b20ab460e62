// #region agent log helper
import { agentLog } from "./agent_debug_log.js";
// #endregion
