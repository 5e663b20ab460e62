#region agent log helper
# debug-mode probe helper: queues one event per call from the caller's script and line; never throws into the script.
$script:AgentDebug = @{
    Queue = [System.Collections.Concurrent.ConcurrentQueue[string]]::new(); Sites = [System.Collections.Concurrent.ConcurrentDictionary[string, object]]::new()
    Path = $(if ($env:AGENT_DEBUG_MODE_APPEND_PATH) { $env:AGENT_DEBUG_MODE_APPEND_PATH } else { '__APPEND_PATH__' })
    Cap = $(if ([int]::TryParse("$env:AGENT_DEBUG_MODE_MAX_PER_LOCATION", [ref]$null) -and [int]$env:AGENT_DEBUG_MODE_MAX_PER_LOCATION -gt 0) { [int]$env:AGENT_DEBUG_MODE_MAX_PER_LOCATION } else { __MAX_PER_LOCATION__ })
    Process = "$PID-$([DateTimeOffset]::UtcNow.ToUnixTimeMilliseconds())"
    # Writes what is queued and each capped location's count when it grew (a running total) in one write, under a named mutex: .NET's FileMode.Append is not O_APPEND.
    Drain = { param($a, [bool]$atExit)
        $lines = [System.Text.StringBuilder]::new(); $line = $null
        while ($a.Queue.TryDequeue([ref]$line)) { [void]$lines.Append($line) }
        foreach ($s in $a.Sites.Values) { $n = $s.Sent; if ($n -gt $a.Cap -and $n -ne $s.Reported) { $s.Reported = $n
            [void]$lines.Append('{"agentDebugHeldBack":{"hypothesisId":' + (ConvertTo-Json -Compress -InputObject ([string]$s.Hypothesis)) + ',"location":' +
                (ConvertTo-Json -Compress -InputObject ([string]$s.Location)) + ',"count":' + ($n - $a.Cap) + ',"cap":' + $a.Cap + ',"process":"' + $a.Process + "`"}}`n") } }
        if ($lines.Length -eq 0) { return }
        $bytes = [System.Text.UTF8Encoding]::new($false).GetBytes($lines.ToString()); $mutex = $null; $owned = $false
        try { $mutex = [System.Threading.Mutex]::new($false, 'agent-debug-mode-log'); $owned = $mutex.WaitOne(2000) } catch { $owned = $_.Exception.GetBaseException() -is [System.Threading.AbandonedMutexException] }
        try { $fs = [System.IO.FileStream]::new($a.Path, [System.IO.FileMode]::Append, [System.IO.FileAccess]::Write, [System.IO.FileShare]::ReadWrite, 1)
            try { $fs.Write($bytes, 0, $bytes.Length) } finally { $fs.Dispose() } } catch { } finally { if ($owned) { $mutex.ReleaseMutex() }; if ($null -ne $mutex) { $mutex.Dispose() } }
    }
}
# The writer: a runspace of its own that drains the shared queue every 20 ms; the rest is written when PowerShell exits.
$script:AgentDebug.Writer = [powershell]::Create().AddScript({ param($a) $d = [scriptblock]::Create($a.Drain.ToString()); while ($true) { Start-Sleep -Milliseconds 20; & $d $a $false } }).AddArgument($script:AgentDebug)
[void]$script:AgentDebug.Writer.BeginInvoke()
[void](Register-EngineEvent -SourceIdentifier PowerShell.Exiting -MessageData $script:AgentDebug -Action { & $event.MessageData.Drain $event.MessageData $true })
function Write-AgentLog([string]$AgentDebugHypothesisId, [string]$AgentDebugMessage, [scriptblock]$AgentDebugData, [string]$AgentDebugLocation) {
    try {
        $a = $script:AgentDebug
        if (-not $AgentDebugLocation) { $AgentDebugLocation = "$($MyInvocation.ScriptName):$($MyInvocation.ScriptLineNumber)" } # the caller's, absolute
        $site = $a.Sites.GetOrAdd($AgentDebugLocation, [pscustomobject]@{ Location = $AgentDebugLocation; Hypothesis = $AgentDebugHypothesisId; Sent = 0; Reported = 0 })
        if (++$site.Sent -gt $a.Cap) { return } # held back
        $ErrorActionPreference = 'Stop' # any error while building data becomes agentDebugDataError
        try { $value = & $AgentDebugData } # evaluated here, inside the guard
        catch { $value = @{ agentDebugDataError = "$_".Substring(0, [Math]::Min(200, "$_".Length)) } }
        function AgentDebugPlain($v, [int]$depth) { # a JSON-safe copy: cycles and opaque objects become markers
            if ($null -eq $v) { return $null }
            if ($v -is [string] -or $v -is [char] -or $v -is [enum]) { return [string]$v }
            if (($v -is [double] -or $v -is [float]) -and ([double]::IsNaN($v) -or [double]::IsInfinity($v))) { return [string]$v }
            if ($v -is [ValueType]) { return $v.PSObject.BaseObject } # numbers, booleans, dates
            if ($depth -ge 64) { return '<unserializable: too deep>' }
            foreach ($s in $seen) { if ([object]::ReferenceEquals($s, $v)) { return '<unserializable cycle>' } }
            $seen.Add($v)
            try {
                if ($v -is [System.Collections.IDictionary] -or $v -is [System.Management.Automation.PSCustomObject]) {
                    $o = [ordered]@{}
                    if ($v -is [System.Collections.IDictionary]) { foreach ($e in $v.GetEnumerator()) { $o[[string]$e.Key] = AgentDebugPlain $e.Value ($depth + 1) } }
                    else { foreach ($p in $v.PSObject.Properties) { $o[$p.Name] = AgentDebugPlain $p.Value ($depth + 1) } }
                    return $o
                }
                if ($v -is [System.Collections.IEnumerable]) {
                    $l = [System.Collections.Generic.List[object]]::new()
                    foreach ($x in $v) { if ($l.Count -ge 10000) { $l.Add('<unserializable: more items>'); break }; $l.Add((AgentDebugPlain $x ($depth + 1))) }
                    return , $l
                }
                return "<unserializable $($v.GetType().FullName)>"
            } finally { $seen.RemoveAt($seen.Count - 1) }
        }
        $seen = [System.Collections.Generic.List[object]]::new()
        try { $text = ConvertTo-Json -InputObject (AgentDebugPlain $value 0) -Compress -Depth 100 }
        catch { $text = ConvertTo-Json -InputObject @{ agentDebugUnserializable = "$_" } -Compress }
        if ($text.Length -gt 16000) { $text = ConvertTo-Json -Compress -InputObject ([ordered]@{ agentDebugTruncated = $true; bytes = $text.Length; preview = $text.Substring(0, 1000) }) }
        $q = { param($s) ConvertTo-Json -InputObject ([string]$s) -Compress }
        $a.Queue.Enqueue('{"hypothesisId":' + (& $q $AgentDebugHypothesisId) + ',"location":' + (& $q $AgentDebugLocation) + ',"message":' + (& $q $AgentDebugMessage) +
            ',"data":' + $text + ',"timestamp":' + [DateTimeOffset]::UtcNow.ToUnixTimeMilliseconds() + "}`n") # lock-free
    } catch { } # never break the script
}
#endregion
