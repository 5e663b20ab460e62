function Get-X($X) {
    #region agent log
    Write-AgentLog "H1" "broken.ps1:3" "x" @{ x = $X }
    $X
}
