<?php
function f($x) {
    // #region agent log
    agent_log("H1", "broken.php:4", "x", ["x" => $x]);
    return $x;
}
