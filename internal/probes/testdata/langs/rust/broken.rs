fn f() -> i32 {
    // #region agent log
    agent_debug_mode::log("H1", "broken.rs:3", "f", "null");
    1
}
