// #region agent log
if (!function_exists('agent_log')) {
    /** Appends one debug-mode event to the Append Path. Pass data as a closure. Never throws. */
    function agent_log($hypothesisId, $location, $message, $data = null): void
    {
        $path = '__APPEND_PATH__';
        $maxData = 16000; // bytes of serialized data kept per event
        $flags = JSON_UNESCAPED_UNICODE | JSON_UNESCAPED_SLASHES | JSON_PRESERVE_ZERO_FRACTION | JSON_INVALID_UTF8_SUBSTITUTE;
        $str = static fn ($v) => json_encode(is_scalar($v) ? (string) $v : gettype($v), $flags);
        try {
            if ($data instanceof Closure) {
                try {
                    $data = $data(); // built here, inside the guard
                } catch (Throwable $e) {
                    $data = ['agentDebugDataError' => substr(get_class($e) . ': ' . $e->getMessage(), 0, 200)];
                }
            }
            try {
                $text = json_encode($data, $flags | JSON_THROW_ON_ERROR);
            } catch (Throwable $e) { // recursion (a cycle), NAN/INF, a resource, a failing JsonSerializable ...
                $text = json_encode(['agentDebugUnserializable' => substr(get_class($e) . ': ' . $e->getMessage(), 0, 200)], $flags);
            }
            if (strlen($text) > $maxData) {
                $text = json_encode(['agentDebugTruncated' => true, 'bytes' => strlen($text), 'preview' => substr($text, 0, 1000)], $flags);
            }
            $line = '{"hypothesisId":' . $str($hypothesisId) . ',"location":' . $str($location)
                . ',"message":' . $str($message) . ',"data":' . $text
                . ',"timestamp":' . (int) floor(microtime(true) * 1000) . "}\n";
            $f = @fopen($path, 'ab');
            if ($f !== false) {
                @fwrite($f, $line); // one write on an O_APPEND handle: lines never interleave
                @fclose($f);
            }
        } catch (Throwable $e) {
            // never break the program
        }
    }
}
// #endregion
