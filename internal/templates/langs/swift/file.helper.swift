// #region agent log helper
import Foundation

/// Queues one debug-mode event from the caller's #filePath:#line (or `location`). Never throws; `data` runs inside the guard, only
/// while the call site is under its cap, and an error it throws becomes {"agentDebugDataError": ...}. (Swift cannot catch traps.)
func agentLog(_ hypothesisId: String, _ message: String, location: String? = nil, file: String = #filePath, line: Int = #line, _ data: () throws -> Any?) {
    let at = location ?? "\(file):\(line)"
    if AgentDebug.locked({ AgentDebug.sites[at, default: (hypothesisId, 0, 0)].1 += 1; return AgentDebug.sites[at]!.1 }) > AgentDebug.cap { return } // held back
    _ = AgentDebug.started // the first event starts the writer
    var value: Any?
    do { value = try data() } catch { value = ["agentDebugDataError": String(String(describing: error).prefix(200))] }
    var seen = Set<ObjectIdentifier>()
    var text = agentDebugJSON(agentDebugPlain(value, 0, &seen))
    if text.utf8.count > 16000 { text = "{\"agentDebugTruncated\":true,\"bytes\":\(text.utf8.count),\"preview\":\(agentDebugQuote(String(text.prefix(1000))))}" }
    let event = "{\"hypothesisId\":" + agentDebugQuote(hypothesisId) + ",\"location\":" + agentDebugQuote(at) + ",\"message\":" + agentDebugQuote(message)
        + ",\"data\":" + text + ",\"timestamp\":\(Int64(Date().timeIntervalSince1970 * 1000))}\n"
    if AgentDebug.locked({ AgentDebug.queue += event; return AgentDebug.queue.utf8.count > 1 << 20 }) { AgentDebug.drain() } // 1 MiB: write it
}

/// The helper's state, under its own lock (never the program's, held for one append); a writer thread every 20 ms, the rest at exit.
enum AgentDebug {
    static let lock = NSLock(), io = NSLock()
    nonisolated(unsafe) static var queue = "", sites = [String: (String, Int, Int)]() // under lock: location → (hypothesis, calls, the count last written)
    static let env = ProcessInfo.processInfo.environment, path = env["AGENT_DEBUG_MODE_APPEND_PATH"].flatMap { $0.isEmpty ? nil : $0 } ?? "__APPEND_PATH__"
    static let cap = Int(env["AGENT_DEBUG_MODE_MAX_PER_LOCATION"] ?? "").flatMap { $0 > 0 ? $0 : nil } ?? __MAX_PER_LOCATION__
    static let process = "\(getpid())-\(Int64(Date().timeIntervalSince1970 * 1000))"
    static let started: Bool = { Thread { while true { Thread.sleep(forTimeInterval: 0.02); drain() } }.start(); atexit { AgentDebug.drain() }; return true }()
    static func locked<T>(_ body: () -> T) -> T { lock.lock(); defer { lock.unlock() }; return body() }
    static func drain() { // the queue, and each capped location's count when it grew (a running total), in one O_APPEND write(2)
        io.lock(); defer { io.unlock() }
        var batch = locked { () -> String in let q = queue; queue = ""; return q }
        locked { for (at, (h, n, r)) in sites where n > cap && n != r { sites[at] = (h, n, n)
            batch += "{\"agentDebugHeldBack\":{\"hypothesisId\":\(agentDebugQuote(h)),\"location\":\(agentDebugQuote(at)),\"count\":\(n - cap),\"cap\":\(cap),\"process\":\"\(process)\"}}\n" } }
        let fd = batch.isEmpty ? -1 : open(path, O_WRONLY | O_APPEND | O_CREAT, 0o600)
        if fd < 0 { return }
        _ = Array(batch.utf8).withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }
}

/// A copy JSONSerialization accepts: optionals unwrapped, NaN as a string, other objects and cycles as markers.
private func agentDebugPlain(_ value: Any?, _ depth: Int, _ seen: inout Set<ObjectIdentifier>) -> Any {
    guard let v = value else { return NSNull() }
    let mirror = Mirror(reflecting: v)
    if mirror.displayStyle == .optional { return agentDebugPlain(mirror.children.first?.value, depth, &seen) }
    switch v {
    case is NSNull, is String, is Bool, is Int, is Int8, is Int16, is Int32, is Int64, is UInt, is UInt8, is UInt16, is UInt32, is UInt64: return v
    case let d as Double where d.isFinite: return d
    case let f as Float where f.isFinite: return Double("\(f)") ?? 0
    case is Double, is Float, is Character, is Substring: return "\(v)" // "nan", "inf" as strings
    default: break
    }
    if mirror.displayStyle == .enum { return "\(v)" }
    let id: ObjectIdentifier? = type(of: v) is AnyClass ? ObjectIdentifier(v as AnyObject) : nil
    if let id = id, seen.contains(id) { return "<unserializable cycle>" }
    if depth > 64 { return "<unserializable: too deep>" }
    if let id = id { seen.insert(id) }
    defer { if let id = id { seen.remove(id) } }
    if let dict = v as? [AnyHashable: Any?] {
        var out = [String: Any]()
        for (key, item) in dict { out["\(key.base)"] = agentDebugPlain(item, depth + 1, &seen) }
        return out
    }
    if mirror.displayStyle == .collection || mirror.displayStyle == .set { return mirror.children.map { agentDebugPlain($0.value, depth + 1, &seen) } }
    return "<unserializable \(type(of: v))>"
}

/// Foundation's JSONSerialization, wrapped in an array so that scalars work on every OS version.
private func agentDebugJSON(_ plain: Any) -> String {
    if let data = try? JSONSerialization.data(withJSONObject: [plain]), let text = String(data: data, encoding: .utf8), text.count >= 2 { return String(text.dropFirst().dropLast()) }
    return "{\"agentDebugUnserializable\":\"JSONSerialization failed\"}"
}

private func agentDebugQuote(_ s: String) -> String { // a JSON string literal for any text
    var out = "\""
    for u in s.unicodeScalars { if u == "\"" || u == "\\" { out += "\\" + String(u) } else if u.value < 0x20 { out += String(format: "\\u%04x", u.value) } else { out.unicodeScalars.append(u) } }
    return out + "\""
}
// #endregion
