// #region agent log helper
#[allow(dead_code, unused_imports, unused_macros)]
pub(crate) mod agent_debug_mode {
    use std::io::Write;
    use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
    use std::sync::{Mutex, OnceLock};
    /// `crate::agent_debug_mode::log!(hypothesis, message, || json_text)` logs from its own file!():line!(), or from a last argument
    /// "path:line". The closure runs only while the call site is under its cap, past which a call is one atomic add.
    macro_rules! agent_debug_log {
        ($h:expr, $m:expr, $data:expr) => { $crate::agent_debug_mode::log!($h, $m, $data, concat!(file!(), ":", line!())) };
        ($h:expr, $m:expr, $data:expr, $location:expr) => {{
            static SITE: $crate::agent_debug_mode::Site = $crate::agent_debug_mode::Site::new();
            if SITE.sent.fetch_add(1, std::sync::atomic::Ordering::Relaxed) < $crate::agent_debug_mode::conf().cap {
                $crate::agent_debug_mode::send(&SITE, $h, $m, $location, $data)
            }
        }};
    }
    pub(crate) use agent_debug_log as log;
    pub struct Site { pub sent: AtomicU64, reported: AtomicU64, name: OnceLock<(String, String)> } // one per call site: its location and hypothesis
    impl Site { pub const fn new() -> Site { Site { sent: AtomicU64::new(0), reported: AtomicU64::new(0), name: OnceLock::new() } } }
    pub struct Conf { pub cap: u64, path: String, process: String }
    static QUEUE: Mutex<String> = Mutex::new(String::new()); // held for one append
    static IO: Mutex<()> = Mutex::new(()); // one batch write at a time
    static SITES: Mutex<Vec<&'static Site>> = Mutex::new(Vec::new());
    unsafe extern "C" { fn atexit(f: extern "C" fn()) -> std::os::raw::c_int; } // the C library's: Rust's std has no exit hook
    extern "C" fn at_exit() { drain() }

    /// The settings (the environment wins over the Append Path filled in here); the first call starts the writer and the exit hook.
    pub fn conf() -> &'static Conf {
        static CONF: OnceLock<Conf> = OnceLock::new();
        CONF.get_or_init(|| {
            std::thread::spawn(|| loop { std::thread::sleep(std::time::Duration::from_millis(20)); drain() }); // the writer
            unsafe { atexit(at_exit) };
            let env = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
            Conf { cap: env("AGENT_DEBUG_MODE_MAX_PER_LOCATION").and_then(|v| v.parse().ok()).filter(|&n| n > 0).unwrap_or(__MAX_PER_LOCATION__),
                   path: env("AGENT_DEBUG_MODE_APPEND_PATH").unwrap_or_else(|| "__APPEND_PATH__".into()), process: format!("{}-{}", std::process::id(), now_ms()) }
        })
    }
    fn now_ms() -> u128 { std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_millis()).unwrap_or(0) }
    fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> { m.lock().unwrap_or_else(|e| e.into_inner()) }

    pub fn json_string(text: &str) -> String { // any text as one JSON string literal, quotes included
        let mut out = String::from("\"");
        for c in text.chars() {
            match c { '"' => out.push_str("\\\""), '\\' => out.push_str("\\\\"), c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)), c => out.push(c) }
        }
        out + "\""
    }
    /// Queues one event; `data` returns one JSON text and runs inside a panic guard. Never panics into the program.
    pub fn send<F: FnOnce() -> S, S: AsRef<str>>(site: &'static Site, hypothesis_id: &str, message: &str, location: &str, data: F) {
        let (location, _) = site.name.get_or_init(|| { lock(&SITES).push(site); (location.to_string(), hypothesis_id.to_string()) });
        let text = match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| data().as_ref().replace(['\n', '\r'], " "))) {
            Ok(t) if t.trim().is_empty() => "null".to_string(), // newlines outside strings are only whitespace in JSON
            Ok(t) if t.len() > 16000 => format!("{{\"agentDebugTruncated\":true,\"bytes\":{},\"preview\":{}}}", t.len(), json_string(&t.chars().take(1000).collect::<String>())),
            Ok(t) => t,
            Err(e) => format!("{{\"agentDebugDataError\":{}}}", json_string(e.downcast_ref::<&str>().copied().or(e.downcast_ref::<String>().map(|s| s.as_str())).unwrap_or("panic"))),
        };
        let line = format!("{{\"hypothesisId\":{},\"location\":{},\"message\":{},\"data\":{},\"timestamp\":{}}}\n",
                           json_string(hypothesis_id), json_string(location), json_string(message), text, now_ms());
        let full = { let mut q = lock(&QUEUE); q.push_str(&line); q.len() > 1 << 20 }; // the writer fell behind by 1 MiB: this call writes
        if full { drain() }
    }

    /// Writes the queue, and each capped call site's held-back count when it grew (a running total), to the append path in one write.
    fn drain() {
        let _io = lock(&IO);
        let (conf, mut batch) = (conf(), std::mem::take(&mut *lock(&QUEUE)));
        for site in lock(&SITES).iter() {
            let n = site.sent.load(Relaxed); if n <= conf.cap || n == site.reported.swap(n, Relaxed) { continue }
            let (location, hypothesis) = site.name.get().cloned().unwrap_or_default();
            batch += &format!("{{\"agentDebugHeldBack\":{{\"hypothesisId\":{},\"location\":{},\"count\":{},\"cap\":{},\"process\":\"{}\"}}}}\n",
                              json_string(&hypothesis), json_string(&location), n - conf.cap, conf.cap, conf.process);
        }
        let mut options = std::fs::OpenOptions::new();
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(options.append(true).create(true), 0o600);
        if let (false, Ok(mut f)) = (batch.is_empty(), options.append(true).create(true).open(&conf.path)) { let _ = f.write_all(batch.as_bytes()); } // one write
    }
}
// #endregion
