#@HELPER@

function Main {
    #@CALL:nested@
    #@CALL:strings@
    #@CALL:scalars@
    #@CALL:oversize@
    #@CALL:unserializable@
    #@CALL:throws@
    #@CALL:secret@

    # Four real threads: ForEach-Object -Parallel runs each item in its own runspace,
    # which gets the helper by definition (functions do not cross runspaces).
    $agentLogDefinition = ${function:Write-AgentLog}.ToString()
    0..3 | ForEach-Object -ThrottleLimit 4 -Parallel {
        ${function:Write-AgentLog} = [scriptblock]::Create($using:agentLogDefinition)
        $t = $_
        foreach ($i in 0..24) {
            #@CALL:thread@
        }
    }
    Write-Output 'program done'
}

Main
