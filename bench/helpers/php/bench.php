<?php
// The PHP helper's import region goes in by bench/helpers (after its own
// `<?php`): n calls in one process (the PHP CLI has no threads); prints
// events, time inside the calls and wall time until shutdown has run.
function bench_main(array $argv): void
{
    [$n, $hyp] = [(int) $argv[1], $argv[3]];
    $hot = 0;
    $start = hrtime(true);
    for ($i = 0; $i < $n; $i++) {
        $t0 = hrtime(true);
        agent_log($hyp, 'cache lookup', fn () => ['worker' => 0, 'i' => $i, 'cacheKey' => "cart:$i", 'hit' => $i % 3 === 0]);
        $hot += hrtime(true) - $t0;
    }
    // Printed at the very end of shutdown, after the helper's own flush.
    register_shutdown_function(static function () use ($n, $hot, $start): void {
        register_shutdown_function(static function () use ($n, $hot, $start): void {
            echo 'events=' . $n . ' hot_ns=' . $hot . ' total_ns=' . (hrtime(true) - $start) . "\n";
        });
    });
}

bench_main($argv);
