// #region agent log
private const val AGENT_DEBUG_PATH = "__APPEND_PATH__"
private const val AGENT_DEBUG_MAX_DATA = 16000 // serialized data kept per event

/** Appends one debug-mode event to the append path. Never throws; [data] runs inside the guard. */
fun agentLog(hypothesisId: String, location: String, message: String, data: () -> Any?) {
    try {
        val value = try { data() } catch (e: Throwable) { mapOf("agentDebugDataError" to e.toString().take(200)) }
        var text = try {
            agentDebugJson(value, StringBuilder(), java.util.IdentityHashMap(), 0).toString()
        } catch (e: Throwable) {
            "{\"agentDebugUnserializable\":" + agentDebugStr(e.toString().take(200), StringBuilder()) + "}"
        }
        if (text.length > AGENT_DEBUG_MAX_DATA) {
            text = "{\"agentDebugTruncated\":true,\"bytes\":" + text.length + ",\"preview\":" +
                agentDebugStr(text.take(1000), StringBuilder()) + "}"
        }
        val line = StringBuilder("{\"hypothesisId\":")
        agentDebugStr(hypothesisId, line).append(",\"location\":")
        agentDebugStr(location, line).append(",\"message\":")
        agentDebugStr(message, line).append(",\"data\":").append(text)
        line.append(",\"timestamp\":").append(System.currentTimeMillis()).append("}\n")
        // One append-mode write of the whole line: threads and processes never interleave lines.
        java.io.FileOutputStream(AGENT_DEBUG_PATH, true).use { it.write(line.toString().toByteArray(Charsets.UTF_8)) }
    } catch (e: Throwable) {
        // never break the program
    }
}

private fun agentDebugStr(s: String, sb: StringBuilder): StringBuilder {
    sb.append('"')
    for (c in s) when {
        c == '"' || c == '\\' -> sb.append('\\').append(c)
        c < ' ' -> sb.append(String.format("\\u%04x", c - '\u0000')) // control characters
        else -> sb.append(c)
    }
    return sb.append('"')
}

private fun agentDebugJson(v: Any?, sb: StringBuilder, seen: java.util.IdentityHashMap<Any, Any>, depth: Int): StringBuilder {
    if (v == null) return sb.append("null")
    val isArray = v.javaClass.isArray
    val container = v is Map<*, *> || v is Iterable<*> || isArray
    if (container && (seen.containsKey(v) || depth > 64)) {
        return agentDebugStr(if (depth > 64) "<unserializable: too deep>" else "<unserializable cycle>", sb)
    }
    when {
        v is String -> agentDebugStr(v, sb)
        v is Char || v is Enum<*> -> agentDebugStr(v.toString(), sb)
        v is Boolean -> sb.append(v)
        v is Number -> {
            val d = v.toDouble()
            val plain = v is Int || v is Long || v is Short || v is Byte || v is Double || v is Float ||
                v is java.math.BigInteger || v is java.math.BigDecimal
            if (d.isNaN() || d.isInfinite()) agentDebugStr(v.toString(), sb) else sb.append(if (plain) v else d)
        }
        container -> {
            seen[v] = v
            val items: Iterable<*> = if (v is Map<*, *>) v.entries else if (v is Iterable<*>) v
                else (0 until java.lang.reflect.Array.getLength(v)).map { java.lang.reflect.Array.get(v, it) }
            sb.append(if (v is Map<*, *>) '{' else '[')
            var first = true
            for (item in items) {
                if (!first) sb.append(',')
                first = false
                if (v is Map<*, *> && item is Map.Entry<*, *>) {
                    agentDebugStr(item.key.toString(), sb).append(':')
                    agentDebugJson(item.value, sb, seen, depth + 1)
                } else agentDebugJson(item, sb, seen, depth + 1)
            }
            sb.append(if (v is Map<*, *>) '}' else ']')
            seen.remove(v)
        }
        else -> agentDebugStr("<unserializable " + v.javaClass.name + ">", sb)
    }
    return sb
}
// #endregion
