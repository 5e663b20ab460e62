let n = 3
// #region agent log
agentLog("H1", "main.swift:3", "n", ["n": n])
// #endregion
print(n)
