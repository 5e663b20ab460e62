// #region agent log helper
package __PACKAGE_NAME__;
import java.util.Map; import java.util.concurrent.atomic.AtomicLong; import java.util.concurrent.atomic.LongAdder;
/** debug-mode probe helper (AgentDebugLog.java): log(...) queues one event and never throws. Java 8+, standard library only. */
public final class AgentDebugLog {
  public interface Data { Object get() throws Exception; } // lazy data; what it throws (checked exceptions too) becomes an agentDebugDataError
  private static final class Site { // a location: events sent, and past the cap the calls held back, each thread counting in a cell of its own
    final String location, hypothesis; final AtomicLong sent = new AtomicLong(); final LongAdder shared = new LongAdder(); final Cell[] cells = new Cell[64]; long reported;
    Site(String l, String h) { location = l; hypothesis = h; } synchronized long held() { long n = Math.max(0, sent.get() - CAP) + shared.sum(); for (Cell c : cells) n += c == null ? 0 : c.get(); return n; } }
  private static final class Cell extends AtomicLong { static final long serialVersionUID = 1; final Thread owner; Cell(Thread t) { owner = t; } } // its owner alone adds (Thread.getId: threadId() is Java 19+)
  private static final class Entry { final Class<?> type; final Site site; final Cell[] full; final Cell first; Entry(Class<?> t, Site s, Cell[] f, Cell c) { type = t; site = s; full = f; first = c; } }
  private static final Entry[] TABLE = new Entry[1024]; // a lambda class (its call site) by identity hash → its site, and its cells once past the cap
  private static Entry last = new Entry(null, null, null, null); // the entry record() wrote last: a hot loop's own, found without hashing
  private static final ClassValue<Site[]> SITES = new ClassValue<Site[]>() { protected Site[] computeValue(Class<?> c) { return new Site[1]; } };
  private static final String PATH = env("AGENT_DEBUG_MODE_APPEND_PATH", "__APPEND_PATH__"), PROCESS = process();
  private static final long CAP = number(env("AGENT_DEBUG_MODE_MAX_PER_LOCATION", ""), __MAX_PER_LOCATION__); private static final java.util.regex.Pattern NUMBER = java.util.regex.Pattern.compile("-?\\d+(\\.\\d+)?([eE][-+]?\\d+)?");
  private static final Map<String, Site> LOCATIONS = new java.util.concurrent.ConcurrentHashMap<String, Site>(); private static final StringBuilder QUEUE = new StringBuilder(); // its own lock
  static { // a daemon writer every 20 ms, and the rest from a shutdown hook at exit; value() sees three lambda classes first, so the JIT inlines
    Data[] d = { () -> null, () -> 0, () -> "" }; for (int i = 0; i < 3000; i++) value(d[i % 3]); // data.get() only where it knows the class: in the caller
    Thread w = new Thread(() -> { for (;;) { try { Thread.sleep(20); } catch (InterruptedException e) { /* again */ } drain(); } }, "agent-debug-mode");
    try { w.setDaemon(true); w.start(); Runtime.getRuntime().addShutdownHook(new Thread(AgentDebugLog::drain)); } catch (Throwable e) { /* at exit already */ } }
  @SuppressWarnings("deprecation") public static void log(String hypothesisId, String message, Data data) { try { // from the caller's file:line. Small: the JIT inlines it
      Class<?> type = data == null ? null : data.getClass(); Entry e = last; if (e.type != type && type != null) e = TABLE[System.identityHashCode(type) & 1023]; // a lambda's class is its call site
      if (e != null && e.type == type && e.full != null) { Thread t = Thread.currentThread(); Cell c = e.first; if (c == null || c.owner != t) c = e.full[(int) t.getId() & 63]; // held back
        if (c != null && c.owner == t) { c.lazySet(c.get() + 1); return; } else if (c != null) { e.site.shared.increment(); return; } }
      Site s = record(null, hypothesisId, null, type, null, null); if (s != null) record(s, hypothesisId, message, null, null, value(data)); } catch (Throwable ignored) { /* never break the program */ } }
  public static void log(String hypothesisId, String message, Data data, String location) { // location "path:line", or when null the caller's file:line
    try { Site s = record(null, hypothesisId, null, location == null && data != null ? data.getClass() : null, location, null); if (s != null) record(s, hypothesisId, message, null, null, value(data)); } catch (Throwable ignored) {} }
  private static Object value(Data data) { try { return data == null ? null : data.get(); } catch (Throwable x) { return map("agentDebugDataError", String.valueOf(x)); } }
  @SuppressWarnings("deprecation") private static Site record(Site site, String hypothesisId, String message, Class<?> type, String location, Object value) {
    if (site == null) { // this call's site, or null: held back. Else it queues the event: one method, too big for the JIT to inline, keeps log() small
    Site[] at = type == null ? new Site[1] : SITES.get(type); Site s = location != null ? LOCATIONS.get(location) : at[0]; int slot = System.identityHashCode(type) & 1023;
    if (s == null) { // a call site's first event: com/acme/Foo.java:42
      for (StackTraceElement f : location == null ? new Throwable().getStackTrace() : new StackTraceElement[0]) if (!f.getClassName().equals(AgentDebugLog.class.getName())) {
        String c = f.getClassName(); location = c.substring(0, c.lastIndexOf('.') + 1).replace('.', '/') + f.getFileName() + ":" + f.getLineNumber(); break; }
      Site created = new Site(location, hypothesisId), old = LOCATIONS.putIfAbsent(location, created);
      s = at[0] = old != null ? old : created; }
    boolean over = s.sent.get() >= CAP; Thread t = Thread.currentThread(); int i = (int) t.getId() & 63;
    if (over || s.sent.incrementAndGet() > CAP) { // held back: counted in sent, or else in this thread's cell (one per thread id modulo 64), or the shared adder
      if (over) synchronized (s) { Cell c = s.cells[i] != null ? s.cells[i] : (s.cells[i] = new Cell(t)); if (c.owner == t) c.lazySet(c.get() + 1); else s.shared.increment(); }
      if (type != null) last = TABLE[slot] = new Entry(type, s, s.cells, s.cells[i] != null && s.cells[i].owner == t ? s.cells[i] : null); return null; }
    if (type != null && (TABLE[slot] == null || TABLE[slot].type != type)) TABLE[slot] = new Entry(type, s, null, null); return s; }
    StringBuilder line = quote(site.location, quote(hypothesisId, new StringBuilder("{\"hypothesisId\":")).append(",\"location\":"));
    int at0 = quote(message, line.append(",\"message\":")).append(",\"data\":").length();
    try { write(line, value, java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<Object, Boolean>()), 0); }
    catch (Throwable x) { quote(String.valueOf(x), line.delete(at0, line.length()).append("{\"agentDebugUnserializable\":")).append('}'); }
    if (line.length() - at0 > 16000) { String text = line.substring(at0); line.delete(at0, line.length()).append("{\"agentDebugTruncated\":true,\"bytes\":").append(text.length());
      quote(text.substring(0, 1000), line.append(",\"preview\":")).append('}'); }
    line.append(",\"timestamp\":").append(System.currentTimeMillis()).append("}\n");
    boolean full; synchronized (QUEUE) { full = QUEUE.append(line).length() > 1 << 20; } if (full) drain(); // the writer fell 1 MiB behind: this call writes
    return site; }
  public static Map<String, Object> map(Object... kv) { // an ordered map that, unlike Map.of, allows nulls: map("n", n, "user", user)
    Map<String, Object> m = new java.util.LinkedHashMap<String, Object>(); for (int i = 0; i + 1 < kv.length; i += 2) m.put(String.valueOf(kv[i]), kv[i + 1]); return m; }
  private static synchronized void drain() { // the writer's own lock: one write per batch, and each capped location's count when it grew (a running total)
    StringBuilder batch = new StringBuilder(); synchronized (QUEUE) { batch.append(QUEUE); QUEUE.setLength(0); }
    for (Site s : LOCATIONS.values()) { long n = s.held(); if (n != s.reported) quote(s.location, quote(s.hypothesis, batch.append("{\"agentDebugHeldBack\":{\"hypothesisId\":"))
        .append(",\"location\":")).append(",\"count\":").append(n).append(",\"cap\":").append(CAP).append(",\"process\":\"").append(PROCESS).append("\"}}\n"); s.reported = n; }
    if (batch.length() > 0) try (java.io.FileOutputStream out = new java.io.FileOutputStream(PATH, true)) { out.write(batch.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8)); }
    catch (Throwable ignored) { /* unwritable: this batch is lost, never the program */ } }
  private static StringBuilder write(StringBuilder sb, Object v, java.util.Set<Object> path, int depth) { // maps, iterables, arrays and scalars, up to 1 MiB
    if (sb.length() > 1 << 20) throw new IllegalStateException("data larger than 1 MiB");
    if (v == null || v instanceof Boolean || v instanceof Integer || v instanceof Long || v instanceof Number && NUMBER.matcher(v.toString()).matches()) return sb.append(v);
    if (v instanceof Number || v instanceof CharSequence || v instanceof Character || v instanceof Enum) return quote(v.toString(), sb); // NaN too
    boolean isMap = v instanceof Map, isArray = v.getClass().isArray(); if (!isMap && !isArray && !(v instanceof Iterable)) return quote("<unserializable " + v.getClass().getName() + ">", sb);
    if (depth > 100 || !path.add(v)) return sb.append(depth > 100 ? "\"<unserializable: nested too deep>\"" : "\"<unserializable cycle>\"");
    sb.append(isMap ? '{' : '['); int n = 0;
    if (isMap) for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) write(quote(String.valueOf(e.getKey()), n++ > 0 ? sb.append(',') : sb).append(':'), e.getValue(), path, depth + 1);
    else if (!isArray) for (Object o : (Iterable<?>) v) write(n++ > 0 ? sb.append(',') : sb, o, path, depth + 1);
    else for (int i = 0; i < java.lang.reflect.Array.getLength(v); i++) write(i > 0 ? sb.append(',') : sb, java.lang.reflect.Array.get(v, i), path, depth + 1);
    path.remove(v); return sb.append(isMap ? '}' : ']'); }
  private static StringBuilder quote(String s, StringBuilder sb) { // a JSON string, or null
    if (s == null) return sb.append("null"); sb.append('"');
    for (int i = 0; i < s.length(); i++) { char c = s.charAt(i); if (c == '"' || c == '\\') sb.append('\\').append(c); else if (c < 0x20) sb.append(String.format("\\u%04x", (int) c)); else sb.append(c); }
    return sb.append('"'); }
  private static String env(String name, String fallback) { String v = System.getenv(name); return v == null || v.isEmpty() ? fallback : v; }
  private static long number(String s, long fallback) { try { return Math.max(1, Long.parseLong(s)); } catch (Throwable e) { return fallback; } }
  private static String process() { // the pid (Java 8 has no ProcessHandle) and when the helper loaded
    try { return java.lang.management.ManagementFactory.getRuntimeMXBean().getName().split("@")[0] + "-" + System.currentTimeMillis(); } catch (Throwable e) { return "0-" + System.currentTimeMillis(); } }
}
// #endregion
