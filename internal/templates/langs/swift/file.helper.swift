// #region agent log
import Foundation

/// Appends one debug-mode event to the append path. Never throws; `data` runs inside the guard, and an
/// error it throws becomes {"agentDebugDataError": ...}. (Swift cannot catch traps such as a nil unwrap.)
func agentLog(_ hypothesisId: String, _ location: String, _ message: String, _ data: () throws -> Any?) {
    let path = "__APPEND_PATH__", maxData = 16000 // bytes of serialized data kept per event
    var value: Any?
    do { value = try data() } catch { value = ["agentDebugDataError": String(String(describing: error).prefix(200))] }
    var seen = Set<ObjectIdentifier>()
    var text = agentDebugJSON(agentDebugPlain(value, 0, &seen))
    if text.utf8.count > maxData {
        let preview = agentDebugQuote(String(text.prefix(1000)))
        text = "{\"agentDebugTruncated\":true,\"bytes\":\(text.utf8.count),\"preview\":\(preview)}"
    }
    let ms = Int64(Date().timeIntervalSince1970 * 1000)
    var line = "{\"hypothesisId\":" + agentDebugQuote(hypothesisId) + ",\"location\":" + agentDebugQuote(location)
    line += ",\"message\":" + agentDebugQuote(message) + ",\"data\":" + text + ",\"timestamp\":\(ms)}\n"
    let fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0o600)
    if fd < 0 { return }
    let bytes = Array(line.utf8)
    _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) } // one O_APPEND write: lines never interleave
    close(fd)
}

/// A copy JSONSerialization accepts: optionals unwrapped, NaN as a string, other objects and cycles as markers.
private func agentDebugPlain(_ value: Any?, _ depth: Int, _ seen: inout Set<ObjectIdentifier>) -> Any {
    guard let v = value else { return NSNull() }
    let mirror = Mirror(reflecting: v)
    if mirror.displayStyle == .optional { return agentDebugPlain(mirror.children.first?.value, depth, &seen) }
    switch v {
    case is NSNull, is String, is Bool, is Int, is Int8, is Int16, is Int32, is Int64,
         is UInt, is UInt8, is UInt16, is UInt32, is UInt64: return v
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
    if mirror.displayStyle == .collection || mirror.displayStyle == .set { // arrays, sets, slices
        var out = [Any]()
        for child in mirror.children { out.append(agentDebugPlain(child.value, depth + 1, &seen)) }
        return out
    }
    return "<unserializable \(type(of: v))>"
}

/// Foundation's JSONSerialization, wrapped in an array so that scalars work on every OS version.
private func agentDebugJSON(_ plain: Any) -> String {
    if let data = try? JSONSerialization.data(withJSONObject: [plain]),
       let text = String(data: data, encoding: .utf8), text.count >= 2 {
        return String(text.dropFirst().dropLast())
    }
    return "{\"agentDebugUnserializable\":\"JSONSerialization failed\"}"
}

/// A JSON string literal for any text; also the fallback where JSONSerialization is not used.
private func agentDebugQuote(_ s: String) -> String {
    var out = "\""
    for u in s.unicodeScalars {
        switch u {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case _ where u.value < 0x20: out += (u.value < 0x10 ? "\\u000" : "\\u001") + String(u.value % 16, radix: 16)
        default: out.unicodeScalars.append(u)
        }
    }
    return out + "\""
}
// #endregion
