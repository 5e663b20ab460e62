#region agent log
# debug-mode probe helper: appends one event per call to the append path; never throws into the script.
function Write-AgentLog([string]$AgentDebugHypothesisId, [string]$AgentDebugLocation, [string]$AgentDebugMessage, [scriptblock]$AgentDebugData) {
    $ErrorActionPreference = 'Stop' # any error while building data becomes agentDebugDataError
    try {
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
                if ($v -is [System.Collections.IDictionary]) {
                    $o = [ordered]@{}
                    foreach ($e in $v.GetEnumerator()) { $o[[string]$e.Key] = AgentDebugPlain $e.Value ($depth + 1) }
                    return $o
                }
                if ($v -is [System.Management.Automation.PSCustomObject]) {
                    $o = [ordered]@{}
                    foreach ($p in $v.PSObject.Properties) { $o[$p.Name] = AgentDebugPlain $p.Value ($depth + 1) }
                    return $o
                }
                if ($v -is [System.Collections.IEnumerable]) {
                    $l = [System.Collections.Generic.List[object]]::new()
                    foreach ($x in $v) {
                        if ($l.Count -ge 10000) { $l.Add('<unserializable: more items>'); break }
                        $l.Add((AgentDebugPlain $x ($depth + 1)))
                    }
                    return , $l
                }
                return "<unserializable $($v.GetType().FullName)>"
            } finally { $seen.RemoveAt($seen.Count - 1) }
        }
        $seen = [System.Collections.Generic.List[object]]::new()
        try { $text = ConvertTo-Json -InputObject (AgentDebugPlain $value 0) -Compress -Depth 100 }
        catch { $text = ConvertTo-Json -InputObject @{ agentDebugUnserializable = "$_" } -Compress }
        if ($text.Length -gt 16000) {
            $text = ConvertTo-Json -Compress -InputObject ([ordered]@{
                    agentDebugTruncated = $true; bytes = $text.Length; preview = $text.Substring(0, 1000) })
        }
        $q = { param($s) ConvertTo-Json -InputObject ([string]$s) -Compress }
        $line = '{"hypothesisId":' + (& $q $AgentDebugHypothesisId) + ',"location":' + (& $q $AgentDebugLocation) +
            ',"message":' + (& $q $AgentDebugMessage) + ',"data":' + $text +
            ',"timestamp":' + [DateTimeOffset]::UtcNow.ToUnixTimeMilliseconds() + "}`n"
        $bytes = [System.Text.UTF8Encoding]::new($false).GetBytes($line)
        # .NET's FileMode.Append writes at the end it saw when opening, not with O_APPEND: a named mutex
        # keeps threads, runspaces and other PowerShell processes from writing over each other's lines.
        $mutex = $null; $owned = $false
        try { $mutex = [System.Threading.Mutex]::new($false, 'agent-debug-mode-log'); $owned = $mutex.WaitOne(2000) }
        catch { $owned = $_.Exception.GetBaseException() -is [System.Threading.AbandonedMutexException] }
        try {
            $fs = [System.IO.FileStream]::new('__APPEND_PATH__', [System.IO.FileMode]::Append,
                [System.IO.FileAccess]::Write, [System.IO.FileShare]::ReadWrite, 1) # unbuffered
            try { $fs.Write($bytes, 0, $bytes.Length) } finally { $fs.Dispose() } # the whole line in one write
        } finally {
            if ($owned) { $mutex.ReleaseMutex() }
            if ($null -ne $mutex) { $mutex.Dispose() }
        }
    } catch { } # never break the script
}
#endregion
