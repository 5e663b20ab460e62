#region agent log
function Write-AgentLog($H, $Loc, $Msg, $Data) { }
#endregion

function Get-Total($Items) {
    # region agent log
    Write-AgentLog "H1" "deploy.ps1:7" "items" @{ n = $Items.Count }
    # endregion
    ($Items | Measure-Object -Sum).Sum
}
