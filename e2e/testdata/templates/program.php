<?php
// @HELPER@

class Node
{
    public $me;

    public function __construct()
    {
        $this->me = $this;
    }
}

function worker(int $t): void
{
    for ($i = 0; $i < 25; $i++) {
        // @CALL:thread@
    }
}

function main(): void
{
    // @CALL:nested@
    // @CALL:strings@
    // @CALL:scalars@
    // @CALL:oversize@
    // @CALL:unserializable@
    // @CALL:throws@
    // @CALL:secret@
    // The PHP CLI has no threads: four forked processes append concurrently
    // instead (four sequential workers where pcntl is missing).
    $children = [];
    for ($t = 0; $t < 4; $t++) {
        $pid = function_exists('pcntl_fork') ? pcntl_fork() : -1;
        if ($pid === 0) {
            worker($t);
            exit(0);
        }
        if ($pid > 0) {
            $children[] = $pid;
        } else {
            worker($t);
        }
    }
    foreach ($children as $pid) {
        pcntl_waitpid($pid, $status);
    }
    echo "program done\n";
}

main();
