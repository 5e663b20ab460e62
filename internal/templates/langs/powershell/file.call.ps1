#region agent log
Write-AgentLog '__HYPOTHESIS_ID__' '__MESSAGE__' { __DATA_EXPRESSION__ }
#endregion
