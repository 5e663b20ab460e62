<?php
// debug-mode probe helper, written by debug-mode (the same for every session). Each instrumented
// file includes it by its absolute path (include_once), so it loads once per process. Never throws.
if (!function_exists('agent_log')) {
    /** The helper's state. PHP has no threads: events wait in memory until shutdown, or 1 MiB, or a call held back (at most once a second). */
    final class AgentDebugMode {
        public static $path = null, $cap = 10000, $buf = [], $size = 0, $sent = [], $held = [], $pid = 0, $proc = '', $forks = false, $due = 0.0;

        /** The queue, then each capped location's held-back count when it grew (a running total: the service keeps the largest). */
        public static function flush(): void {
            if (self::$forks && getmypid() !== self::$pid) self::newProcess(); // a forked child's copy of its parent's queue: the parent sends it
            foreach (self::$held as $location => [$hypothesisId, $count, $reported]) if ($count !== $reported) {
                self::$held[$location][2] = $count;
                self::$buf[] = json_encode(['agentDebugHeldBack' => ['hypothesisId' => $hypothesisId, 'location' => (string) $location, 'count' => $count,
                    'cap' => self::$cap, 'process' => self::$proc]], JSON_UNESCAPED_SLASHES | JSON_INVALID_UTF8_SUBSTITUTE) . "\n";
            }
            [$lines, self::$buf, self::$size, self::$due] = [self::$buf, [], 0, microtime(true) + 1];
            if ($lines !== [] && ($f = @fopen(self::$path, 'ab')) !== false) {
                @fwrite($f, implode('', $lines)); // one write per batch on an O_APPEND handle
                @fclose($f);
            }
        }
        public static function newProcess(): void { // at load, and in a forked child: nothing inherited is sent twice
            [self::$buf, self::$size, self::$sent, self::$held, self::$pid] = [[], 0, [], [], getmypid()];
            self::$proc = self::$pid . '-' . (int) floor(microtime(true) * 1000);
        }
    }

    /** The first binding in a process says where events go; the environment wins over it. */
    function agent_debug_mode_bind(string $path, int $cap = 10000): void {
        if (AgentDebugMode::$path === null) {
            $env = (string) getenv('AGENT_DEBUG_MODE_MAX_PER_LOCATION');
            AgentDebugMode::$path = getenv('AGENT_DEBUG_MODE_APPEND_PATH') ?: $path;
            AgentDebugMode::$cap = ctype_digit($env) ? (int) $env : $cap;
            AgentDebugMode::$forks = function_exists('pcntl_fork'); // only then can the process fork
            AgentDebugMode::newProcess();
            register_shutdown_function([AgentDebugMode::class, 'flush']);
        }
    }

    /** Queues one event; pass data as a closure (fn () => ...), evaluated here inside the guard. */
    function agent_log($hypothesisId, $message, $data = null, $location = null): void {
        $flags = JSON_UNESCAPED_UNICODE | JSON_UNESCAPED_SLASHES | JSON_PRESERVE_ZERO_FRACTION | JSON_INVALID_UTF8_SUBSTITUTE;
        $str = static fn ($v) => json_encode(is_scalar($v) ? (string) $v : gettype($v), $flags);
        try {
            if (AgentDebugMode::$forks && getmypid() !== AgentDebugMode::$pid) AgentDebugMode::newProcess();
            if ($location === null) {
                $call = debug_backtrace(DEBUG_BACKTRACE_IGNORE_ARGS, 1)[0];
                $location = ($call['file'] ?? '?') . ':' . ($call['line'] ?? 0); // an absolute path: the service makes it relative to the project root
            }
            if (($sent = AgentDebugMode::$sent[$location = (string) $location] ?? 0) >= AgentDebugMode::$cap) { // capped: count, send nothing
                $h = AgentDebugMode::$held[$location] = [(string) $hypothesisId, (AgentDebugMode::$held[$location][1] ?? 0) + 1, AgentDebugMode::$held[$location][2] ?? 0];
                if ($h[1] === 1 || microtime(true) >= AgentDebugMode::$due) AgentDebugMode::flush(); // the first held back at once, then at most once a second
                return;
            }
            AgentDebugMode::$sent[$location] = $sent + 1;
            try {
                $data = $data instanceof Closure ? $data() : $data;
            } catch (Throwable $e) {
                $data = ['agentDebugDataError' => substr(get_class($e) . ': ' . $e->getMessage(), 0, 200)];
            }
            try {
                $text = json_encode($data, $flags | JSON_THROW_ON_ERROR);
            } catch (Throwable $e) { // recursion (a cycle), NAN/INF, a resource, a failing JsonSerializable ...
                $text = json_encode(['agentDebugUnserializable' => substr(get_class($e) . ': ' . $e->getMessage(), 0, 200)], $flags);
            }
            if (strlen($text) > 16000) { // bytes of serialized data kept per event
                $text = json_encode(['agentDebugTruncated' => true, 'bytes' => strlen($text), 'preview' => substr($text, 0, 1000)], $flags);
            }
            AgentDebugMode::$buf[] = $line = '{"hypothesisId":' . $str($hypothesisId) . ',"location":' . $str($location) . ',"message":'
                . $str($message) . ',"data":' . $text . ',"timestamp":' . (int) floor(microtime(true) * 1000) . "}\n";
            if ((AgentDebugMode::$size += strlen($line)) > 1048576) {
                AgentDebugMode::flush(); // one write per MiB; the rest at shutdown
            }
        } catch (Throwable $e) {
            // never break the program
        }
    }
}
return true;
