fn main() {
    let n = 3;
    // #region agent log
    agent_debug_mode::log("H1", "main.rs:4", "n", &format!("{{\"n\":{}}}", n));
    // #endregion
    println!("{}", n);
}
