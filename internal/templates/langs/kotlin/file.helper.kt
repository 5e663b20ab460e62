// #region agent log helper
/** Queues one debug-mode event from the caller's file:line (or [location]); never throws; [data] runs in the guard, only under the cap. Small: the JIT inlines it. */
@Suppress("DEPRECATION") fun agentLog(hypothesisId: String, message: String, location: String? = null, data: () -> Any?) { try { // Thread.id: threadId() is Java 19+
        val type = if (location == null) data.javaClass else null; var e = AgentDebug.last // a lambda's class is its call site
        if (e.type !== type) e = AgentDebug.table[System.identityHashCode(type) and 1023] ?: e; val owners = e.owners
        if (type != null && e.type === type && owners != null) { // held back
            val t = Thread.currentThread(); val i = if (e.first === t) e.slot else t.id.toInt() and 63; val owner = owners[i]
            if (owner === t) { e.counts.lazySet(i, e.counts.get(i) + 1); return } else if (owner != null) { e.site.shared.increment(); return } }
        AgentDebug.record(null, hypothesisId, message, location, type, null)?.let { AgentDebug.record(it, hypothesisId, message, null, null, AgentDebug.value(data)) }
    } catch (e: Throwable) { /* never break the program */ } }
private object AgentDebug { // a daemon writer every 20 ms, and the rest from a shutdown hook at exit
    class Site(@JvmField val location: String, @JvmField val hypothesis: String) { // events sent, and past the cap those held back: a count per thread
        @JvmField val sent = java.util.concurrent.atomic.AtomicLong(); @JvmField val shared = java.util.concurrent.atomic.LongAdder(); @JvmField var reported = 0L
        @JvmField val owners = arrayOfNulls<Thread>(64); @JvmField val counts = java.util.concurrent.atomic.AtomicLongArray(64) // slot: thread id modulo 64; its owner alone adds
        @Synchronized fun held(): Long { var n = maxOf(0L, sent.get() - cap) + shared.sum(); for (i in 0 until 64) n += counts.get(i); return n } }
    class Entry(@JvmField val type: Class<*>?, @JvmField val site: Site, @JvmField val owners: Array<Thread?>?, @JvmField val counts: java.util.concurrent.atomic.AtomicLongArray, @JvmField val first: Thread?, @JvmField val slot: Int)
    @JvmField val table = arrayOfNulls<Entry>(1024) // a lambda class (its call site) by identity hash → its site, and once past the cap its slots
    @JvmField var last = Entry(null, Site("", ""), null, java.util.concurrent.atomic.AtomicLongArray(0), null, 0) // the entry record() wrote last: a hot loop's own, found without hashing
    val path = System.getenv("AGENT_DEBUG_MODE_APPEND_PATH")?.takeIf { it.isNotEmpty() } ?: "__APPEND_PATH__"
    val cap = System.getenv("AGENT_DEBUG_MODE_MAX_PER_LOCATION")?.toLongOrNull()?.takeIf { it > 0 } ?: __MAX_PER_LOCATION__L
    val process = (try { java.lang.management.ManagementFactory.getRuntimeMXBean().name.substringBefore('@') } catch (e: Throwable) { "0" }) + "-" + System.currentTimeMillis()
    val sites = object : ClassValue<Array<Site?>>() { override fun computeValue(type: Class<*>) = arrayOfNulls<Site>(1) }
    val locations = java.util.concurrent.ConcurrentHashMap<String, Site>(); val queue = StringBuilder()
    init { val d = arrayOf<() -> Any?>({ null }, { 0 }, { "" }); for (i in 0 until 3000) value(d[i % 3]) // value() sees three lambda classes: the JIT inlines
        val writer = Thread({ while (true) { try { Thread.sleep(20) } catch (e: InterruptedException) {} ; drain() } }, "agent-debug-mode")
        try { writer.isDaemon = true; writer.start(); Runtime.getRuntime().addShutdownHook(Thread { drain() }) } catch (e: Throwable) {} }
    fun value(data: () -> Any?): Any? = try { data() } catch (e: Throwable) { mapOf("agentDebugDataError" to e.toString().take(200)) } // inlined into agentLog's caller
    @Suppress("DEPRECATION") fun record(site: Site?, hypothesisId: String, message: String, location: String?, type: Class<*>?, value: Any?): Site? {
        if (site == null) { // this call's site, or null: held back. Else it queues the event: one method, too big for the JIT to inline, keeps agentLog small
            val at = if (type == null) arrayOfNulls<Site>(1) else sites.get(type)
        val s = (if (location != null) locations[location] else at[0]) ?: run { // a call site's first event: com/acme/Cart.kt:42
            val l = location ?: Throwable().stackTrace.first { !it.className.endsWith("AgentDebug") && !it.methodName.startsWith("agentLog") }
                .let { it.className.substringBeforeLast('.', "").replace('.', '/').let { p -> if (p == "") "" else "$p/" } + it.fileName + ":" + it.lineNumber }
            locations.getOrPut(l) { Site(l, hypothesisId) }.also { at[0] = it } }
        val over = s.sent.get() >= cap; val t = Thread.currentThread(); val i = t.id.toInt() and 63; val slot = System.identityHashCode(type) and 1023
        if (over || s.sent.incrementAndGet() > cap) { // held back: counted in sent, or else in this thread's cell (one per thread id modulo 64), or the shared adder
            if (over) synchronized(s) { if (s.owners[i] == null) s.owners[i] = t; if (s.owners[i] === t) s.counts.lazySet(i, s.counts.get(i) + 1) else s.shared.increment() }
            if (type != null) { last = Entry(type, s, s.owners, s.counts, t, i); table[slot] = last }; return null }
        if (type != null && table[slot]?.type !== type) table[slot] = Entry(type, s, null, s.counts, null, 0)
        return s }
        var text = try { agentDebugJson(value, StringBuilder(), java.util.IdentityHashMap(), 0).toString() }
            catch (e: Throwable) { "{\"agentDebugUnserializable\":" + agentDebugStr(e.toString().take(200), StringBuilder()) + "}" }
        if (text.length > 16000) text = "{\"agentDebugTruncated\":true,\"bytes\":" + text.length + ",\"preview\":" + agentDebugStr(text.take(1000), StringBuilder()) + "}"
        val line = agentDebugStr(site.location, agentDebugStr(hypothesisId, StringBuilder("{\"hypothesisId\":")).append(",\"location\":")).append(",\"message\":")
        agentDebugStr(message, line).append(",\"data\":").append(text).append(",\"timestamp\":").append(System.currentTimeMillis()).append("}\n")
        if (synchronized(queue) { queue.append(line).length > 1 shl 20 }) drain() // queue: its own lock, held for one append; 1 MiB behind: this call writes
        return site }
    @Synchronized fun drain() { // the writer's own lock: one write per batch, and each capped site's count when it grew (a running total)
        val batch = synchronized(queue) { queue.toString().also { queue.setLength(0) } }.let(::StringBuilder)
        for (s in locations.values) { val n = s.held(); if (n != s.reported) {
            batch.append("{\"agentDebugHeldBack\":{\"hypothesisId\":"); agentDebugStr(s.hypothesis, batch).append(",\"location\":")
            agentDebugStr(s.location, batch).append(",\"count\":").append(n).append(",\"cap\":$cap,\"process\":\"$process\"}}\n") }; s.reported = n }
        if (batch.isNotEmpty()) try { java.io.FileOutputStream(path, true).use { it.write(batch.toString().toByteArray(Charsets.UTF_8)) } } catch (e: Throwable) {}
    }
}
private fun agentDebugStr(s: String, sb: StringBuilder): StringBuilder { sb.append('"') // a JSON string: quotes, backslash and control characters escaped
    for (c in s) if (c == '"' || c == '\\') sb.append('\\').append(c) else if (c < ' ') sb.append(String.format("\\u%04x", c - '\u0000')) else sb.append(c); return sb.append('"') }
private fun agentDebugJson(v: Any?, sb: StringBuilder, seen: java.util.IdentityHashMap<Any, Any>, depth: Int): StringBuilder {
    if (v == null) return sb.append("null"); val container = v is Map<*, *> || v is Iterable<*> || v.javaClass.isArray
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
