<?php
// #region agent log
function agent_log($h, $loc, $msg, $data) { /* helper */ }
// #endregion

function total(array $items): float {
    #region agent log
    agent_log("H1", "index.php:8", "items", ["n" => count($items)]);
    #endregion
    return array_sum($items);
}
