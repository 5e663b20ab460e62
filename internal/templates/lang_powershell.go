package templates

func init() {
	register(language{id: "powershell", display: "PowerShell", ext: "ps1", comment: "#", aliases: []string{"pwsh", "ps1", "ps"},
		ingests: []string{"file"}, encoding: NativeJSON, helperPlacement: "top-level", verifiedLive: false,
		regions: &Regions{Start: "#region agent log", End: "#endregion"},
		notes: []string{
			"Top level means script scope, before the first call runs (a function must be defined before it is called). For several scripts, save it as AgentDebugLog.ps1 and dot-source it once: `. $PSScriptRoot/AgentDebugLog.ps1` (in its own region). PowerShell 7.",
			"The helper fills location itself from $MyInvocation: the calling script's absolute path and line (the service stores it relative to the session's project root); a fourth argument 'path:line' names another place.",
			"Pass data in the script block (as the call template does) so it is evaluated inside the helper's guard, and only while the location is under its cap: any error in it, even a non-terminating one, becomes agentDebugDataError. Its output is collected like a pipeline, so wrap a one-element list as `,@(x)`.",
			"Runspaces (ForEach-Object -Parallel, Start-ThreadJob) do not inherit functions: pass the definition in, e.g. `$def = ${function:Write-AgentLog}.ToString()` outside and `${function:Write-AgentLog} = [scriptblock]::Create($using:def)` inside (such a runspace needs the helper's state too, so paste the helper there instead when you can).",
			"A call serializes the event and enqueues it on a ConcurrentQueue (no lock, no system call); a runspace of the helper's own drains the queue every 20 ms in one write, and the PowerShell.Exiting engine event writes the rest; past 10,000 events from one location (AGENT_DEBUG_MODE_MAX_PER_LOCATION) the writer sends an agentDebugHeldBack record with the count held back so far when the cap is first reached and again whenever it grew (a running total), so a killed program has reported it too. Hashtables and [pscustomobject] become objects, arrays and lists arrays; other objects \"<unserializable Type>\"; ConvertTo-Json -Compress writes the text. Each batch is one unbuffered FileStream write under a named mutex, because .NET's FileMode.Append is not an O_APPEND append. AGENT_DEBUG_MODE_APPEND_PATH, when set, wins over the Append Path in the helper.",
		}})
}
