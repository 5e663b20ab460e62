// #region agent log helper
/** Queues one debug-mode event from the caller's file:line (or [location]); never throws. [data] runs inside the guard, and only
 *  while the call site is under its cap, past which a call is a ClassValue read and an atomic add (the lambda's class is its site). */
fun agentLog(hypothesisId: String, message: String, location: String? = null, data: () -> Any?) {
    try {
        val holder = if (location == null) AgentDebug.sites.get(data.javaClass) else arrayOfNulls(1)
        val site = holder[0] ?: AgentDebug.site(hypothesisId, location).also { holder[0] = it }
        if (site.sent.incrementAndGet() > AgentDebug.cap) return // held back
        val value = try { data() } catch (e: Throwable) { mapOf("agentDebugDataError" to e.toString().take(200)) }
        var text = try { agentDebugJson(value, StringBuilder(), java.util.IdentityHashMap(), 0).toString() }
            catch (e: Throwable) { "{\"agentDebugUnserializable\":" + agentDebugStr(e.toString().take(200), StringBuilder()) + "}" }
        if (text.length > 16000) text = "{\"agentDebugTruncated\":true,\"bytes\":" + text.length + ",\"preview\":" + agentDebugStr(text.take(1000), StringBuilder()) + "}"
        val line = agentDebugStr(site.location, agentDebugStr(hypothesisId, StringBuilder("{\"hypothesisId\":")).append(",\"location\":")).append(",\"message\":")
        agentDebugStr(message, line).append(",\"data\":").append(text).append(",\"timestamp\":").append(System.currentTimeMillis()).append("}\n")
        val full = synchronized(AgentDebug.queue) { AgentDebug.queue.append(line).length > 1 shl 20 } // its own lock, held for one append
        if (full) AgentDebug.drain() // the writer fell behind by 1 MiB: this call writes the batch
    } catch (e: Throwable) { /* never break the program */ }
}

private object AgentDebug { // a daemon writer every 20 ms, and the rest from a shutdown hook at exit
    class Site(val location: String, val hypothesis: String) { val sent = java.util.concurrent.atomic.AtomicLong(); var reported = 0L } // its calls; the last count written
    val path = System.getenv("AGENT_DEBUG_MODE_APPEND_PATH")?.takeIf { it.isNotEmpty() } ?: "__APPEND_PATH__"
    val cap = System.getenv("AGENT_DEBUG_MODE_MAX_PER_LOCATION")?.toLongOrNull()?.takeIf { it > 0 } ?: __MAX_PER_LOCATION__L
    val process = (try { java.lang.management.ManagementFactory.getRuntimeMXBean().name.substringBefore('@') } catch (e: Throwable) { "0" }) + "-" + System.currentTimeMillis()
    val sites = object : ClassValue<Array<Site?>>() { override fun computeValue(type: Class<*>) = arrayOfNulls<Site>(1) }
    val locations = java.util.concurrent.ConcurrentHashMap<String, Site>()
    val queue = StringBuilder()
    init {
        val writer = Thread({ while (true) { try { Thread.sleep(20) } catch (e: InterruptedException) {} ; drain() } }, "agent-debug-mode")
        try { writer.isDaemon = true; writer.start(); Runtime.getRuntime().addShutdownHook(Thread { drain() }) } catch (e: Throwable) {}
    }
    fun site(hypothesisId: String, location: String?): Site { // a call site's first event: com/acme/Cart.kt:42
        val at = location ?: Throwable().stackTrace.first { !it.className.endsWith("AgentDebug") && !it.methodName.startsWith("agentLog") }
            .let { it.className.substringBeforeLast('.', "").replace('.', '/').let { p -> if (p == "") "" else "$p/" } + it.fileName + ":" + it.lineNumber }
        return locations.getOrPut(at) { Site(at, hypothesisId) }
    }
    @Synchronized fun drain() { // the writer's own lock: one write per batch, each capped site's count when it grew (a running total)
        val batch = synchronized(queue) { queue.toString().also { queue.setLength(0) } }.let(::StringBuilder)
        for (s in locations.values) { val n = s.sent.get(); if (n > cap && n != s.reported) { s.reported = n
            batch.append("{\"agentDebugHeldBack\":{\"hypothesisId\":"); agentDebugStr(s.hypothesis, batch).append(",\"location\":")
            agentDebugStr(s.location, batch).append(",\"count\":").append(n - cap).append(",\"cap\":$cap,\"process\":\"$process\"}}\n")
        } }
        if (batch.isNotEmpty()) try { java.io.FileOutputStream(path, true).use { it.write(batch.toString().toByteArray(Charsets.UTF_8)) } } catch (e: Throwable) {}
    }
}

private fun agentDebugStr(s: String, sb: StringBuilder): StringBuilder { // a JSON string: quotes, backslash and control characters escaped
    sb.append('"')
    for (c in s) if (c == '"' || c == '\\') sb.append('\\').append(c) else if (c < ' ') sb.append(String.format("\\u%04x", c - '\u0000')) else sb.append(c)
    return sb.append('"')
}

private fun agentDebugJson(v: Any?, sb: StringBuilder, seen: java.util.IdentityHashMap<Any, Any>, depth: Int): StringBuilder {
    if (v == null) return sb.append("null")
    val container = v is Map<*, *> || v is Iterable<*> || v.javaClass.isArray
    if (container && (seen.containsKey(v) || depth > 64)) return agentDebugStr(if (depth > 64) "<unserializable: too deep>" else "<unserializable cycle>", sb)
    when {
        v is String -> agentDebugStr(v, sb)
        v is Char || v is Enum<*> -> agentDebugStr(v.toString(), sb)
        v is Boolean -> sb.append(v)
        v is Number -> if (v.toDouble().isNaN() || v.toDouble().isInfinite()) agentDebugStr(v.toString(), sb) else sb.append(
            if (v is Int || v is Long || v is Short || v is Byte || v is Double || v is Float || v is java.math.BigInteger || v is java.math.BigDecimal) v else v.toDouble())
        container -> {
            seen[v] = v
            val items: Iterable<*> = if (v is Map<*, *>) v.entries else if (v is Iterable<*>) v else (0 until java.lang.reflect.Array.getLength(v)).map { java.lang.reflect.Array.get(v, it) }
            sb.append(if (v is Map<*, *>) '{' else '[')
            for ((i, item) in items.withIndex()) if (item is Map.Entry<*, *> && v is Map<*, *>) agentDebugJson(item.value, agentDebugStr(item.key.toString(), if (i > 0) sb.append(',') else sb).append(':'), seen, depth + 1)
                else agentDebugJson(item, if (i > 0) sb.append(',') else sb, seen, depth + 1)
            sb.append(if (v is Map<*, *>) '}' else ']')
            seen.remove(v)
        }
        else -> agentDebugStr("<unserializable " + v.javaClass.name + ">", sb)
    }
    return sb
}
// #endregion
