// #region agent log
#[allow(dead_code)]
mod agent_debug_mode {
    use std::io::Write;

    const PATH: &str = "__APPEND_PATH__";
    const MAX_DATA: usize = 16000; // bytes of serialized data kept per event

    /// Encodes any text as one JSON string literal, quotes included.
    pub fn json_string(text: &str) -> String {
        let mut out = String::with_capacity(text.len() + 2);
        out.push('"');
        for c in text.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
                c => out.push(c),
            }
        }
        out.push('"');
        out
    }

    /// Appends one event. `data` returns one JSON text; it runs inside a
    /// panic guard. Never panics into the program; safe from any thread.
    pub fn log<F: FnOnce() -> S, S: AsRef<str>>(hypothesis_id: &str, location: &str, message: &str, data: F) {
        let text = match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| data().as_ref().to_string())) {
            Ok(t) => t.replace(['\n', '\r'], " "), // newlines outside strings are only whitespace in JSON
            Err(e) => {
                let m = e.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| e.downcast_ref::<String>().cloned());
                format!("{{\"agentDebugDataError\":{}}}", json_string(&m.unwrap_or_else(|| "panic".into())))
            }
        };
        let mut text = if text.trim().is_empty() { "null".to_string() } else { text };
        if text.len() > MAX_DATA {
            let preview: String = text.chars().take(1000).collect();
            text = format!("{{\"agentDebugTruncated\":true,\"bytes\":{},\"preview\":{}}}", text.len(), json_string(&preview));
        }
        let ts = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_millis()).unwrap_or(0);
        let line = format!(
            "{{\"hypothesisId\":{},\"location\":{},\"message\":{},\"data\":{},\"timestamp\":{}}}\n",
            json_string(hypothesis_id), json_string(location), json_string(message), text, ts
        );
        static FILE: std::sync::OnceLock<Option<std::fs::File>> = std::sync::OnceLock::new();
        let file = FILE.get_or_init(|| {
            let mut options = std::fs::OpenOptions::new();
            options.append(true).create(true);
            #[cfg(unix)]
            std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
            options.open(PATH).ok() // opened once, kept open
        });
        if let Some(mut f) = file.as_ref() {
            let _ = f.write_all(line.as_bytes()); // one write per line: threads and processes never interleave
        }
    }
}
// #endregion
