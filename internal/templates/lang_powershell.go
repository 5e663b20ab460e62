package templates

func init() {
	register(language{id: "powershell", display: "PowerShell", ext: "ps1", comment: "#", aliases: []string{"pwsh", "ps1", "ps"},
		ingests: []string{"file"}, encoding: NativeJSON, helperPlacement: "top-level", verifiedLive: false,
		regions: &Regions{Start: "#region agent log", End: "#endregion"},
		notes: []string{
			"Top level means script scope, before the first call runs (a function must be defined before it is called). For several scripts, save it as AgentDebugLog.ps1 and dot-source it once: `. $PSScriptRoot/AgentDebugLog.ps1` (in its own region).",
			"Pass data in the script block (as the call template does) so it is evaluated inside the helper's guard: any error in it, even a non-terminating one, becomes agentDebugDataError. Its output is collected like a pipeline, so wrap a one-element list as `,@(x)`.",
			"Runspaces (ForEach-Object -Parallel, Start-ThreadJob) do not inherit functions: pass the definition in, e.g. `$def = ${function:Write-AgentLog}.ToString()` outside and `${function:Write-AgentLog} = [scriptblock]::Create($using:def)` inside.",
			"Hashtables and [pscustomobject] become objects, arrays and lists arrays; other objects \"<unserializable Type>\"; ConvertTo-Json -Compress writes the text. Each event is one unbuffered FileStream write of the whole line, under a named mutex because .NET's FileMode.Append is not an O_APPEND append.",
		}})
}
