// #region agent log helper
package __PACKAGE_NAME__;
/** debug-mode probe helper (AgentDebugLog.java): log(...) queues one event and never throws. Java 8+, standard library only. */
public final class AgentDebugLog {
  public interface Data { Object get() throws Exception; } // lazy data; what it throws (checked exceptions too) becomes an agentDebugDataError
  private static final class Site extends java.util.concurrent.atomic.AtomicLong { // its calls; reported: the last count written (drain's lock)
    static final long serialVersionUID = 1; final String location, hypothesis; long reported; Site(String l, String h) { location = l; hypothesis = h; } }
  private static final String PATH = env("AGENT_DEBUG_MODE_APPEND_PATH", "__APPEND_PATH__"), PROCESS = process();
  private static final long CAP = number(env("AGENT_DEBUG_MODE_MAX_PER_LOCATION", ""), __MAX_PER_LOCATION__);
  private static final java.util.regex.Pattern NUMBER = java.util.regex.Pattern.compile("-?\\d+(\\.\\d+)?([eE][-+]?\\d+)?");
  private static final ClassValue<Site[]> SITES = new ClassValue<Site[]>() { protected Site[] computeValue(Class<?> c) { return new Site[1]; } };
  private static final java.util.Map<String, Site> LOCATIONS = new java.util.concurrent.ConcurrentHashMap<String, Site>();
  private static final StringBuilder QUEUE = new StringBuilder(); // its own lock, held for one append
  static { // a daemon writer every 20 ms, and the rest from a shutdown hook at exit
    Thread w = new Thread(() -> { for (;;) { try { Thread.sleep(20); } catch (InterruptedException e) { /* again */ } drain(); } }, "agent-debug-mode");
    try { w.setDaemon(true); w.start(); Runtime.getRuntime().addShutdownHook(new Thread(AgentDebugLog::drain)); } catch (Throwable e) { /* at exit already */ } }
  public static void log(String hypothesisId, String message, Data data) { log(hypothesisId, message, data, null); }
  /** Queues one event from location ("path:line"), or when null the caller's file:line. Past the cap: a ClassValue read and an atomic add. */
  public static void log(String hypothesisId, String message, Data data, String location) {
    try {
      Site[] site = data == null || location != null ? new Site[1] : SITES.get(data.getClass()); // a lambda's class is its call site
      if ((site[0] != null ? site[0] : (site[0] = site(hypothesisId, location))).incrementAndGet() > CAP) return; // held back
      Object value; try { value = data == null ? null : data.get(); } catch (Throwable e) { value = map("agentDebugDataError", String.valueOf(e)); }
      String text = serialize(value);
      if (text.length() > 16000) text = "{\"agentDebugTruncated\":true,\"bytes\":" + text.length() + ",\"preview\":" + quote(text.substring(0, 1000)) + "}";
      String line = "{\"hypothesisId\":" + quote(hypothesisId) + ",\"location\":" + quote(site[0].location) + ",\"message\":" + quote(message)
          + ",\"data\":" + text + ",\"timestamp\":" + System.currentTimeMillis() + "}\n";
      boolean full; synchronized (QUEUE) { full = QUEUE.append(line).length() > 1 << 20; }
      if (full) drain(); // the writer fell behind by 1 MiB: this call writes the batch
    } catch (Throwable ignored) { /* never break the program */ }
  }
  /** An ordered map that, unlike Map.of, allows nulls: map("n", n, "user", user). */
  public static java.util.Map<String, Object> map(Object... kv) {
    java.util.Map<String, Object> m = new java.util.LinkedHashMap<String, Object>(); for (int i = 0; i + 1 < kv.length; i += 2) m.put(String.valueOf(kv[i]), kv[i + 1]);
    return m;
  }
  private static Site site(String hypothesisId, String location) { // a call site's first event: com/acme/Foo.java:42
    for (StackTraceElement f : location == null ? new Throwable().getStackTrace() : new StackTraceElement[0])
      if (!f.getClassName().equals(AgentDebugLog.class.getName())) {
        String c = f.getClassName(); location = c.substring(0, c.lastIndexOf('.') + 1).replace('.', '/') + f.getFileName() + ":" + f.getLineNumber(); break; }
    Site s = new Site(location, hypothesisId), old = LOCATIONS.putIfAbsent(location, s);
    return old != null ? old : s;
  }
  private static synchronized void drain() { // the writer's own lock: one write per batch, each capped location's count when it grew (a running total)
    StringBuilder batch = new StringBuilder();
    synchronized (QUEUE) { batch.append(QUEUE); QUEUE.setLength(0); }
    for (Site s : LOCATIONS.values()) { long n = s.get(); if (n > CAP && n != s.reported) batch.append("{\"agentDebugHeldBack\":{\"hypothesisId\":" + quote(s.hypothesis)
        + ",\"location\":" + quote(s.location) + ",\"count\":" + ((s.reported = n) - CAP) + ",\"cap\":" + CAP + ",\"process\":\"" + PROCESS + "\"}}\n"); }
    if (batch.length() > 0) try (java.io.FileOutputStream out = new java.io.FileOutputStream(PATH, true)) { out.write(batch.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8)); }
    catch (Throwable ignored) { /* unwritable: this batch is lost, never the program */ }
  }
  private static String serialize(Object data) {
    try { return write(new StringBuilder(), data, java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<Object, Boolean>())).toString(); }
    catch (Throwable e) { return "{\"agentDebugUnserializable\":" + quote(String.valueOf(e)) + "}"; } }
  private static StringBuilder write(StringBuilder sb, Object v, java.util.Set<Object> path) { // maps, iterables, arrays and scalars
    if (sb.length() > 1 << 20) throw new IllegalStateException("data larger than 1 MiB");
    if (v == null || v instanceof Boolean || v instanceof Number && NUMBER.matcher(v.toString()).matches()) return sb.append(v);
    if (v instanceof Number || v instanceof CharSequence || v instanceof Character || v instanceof Enum) return sb.append(quote(v.toString())); // NaN too
    boolean isMap = v instanceof java.util.Map, isArray = v.getClass().isArray();
    if (!isMap && !isArray && !(v instanceof Iterable)) return sb.append(quote("<unserializable " + v.getClass().getName() + ">"));
    if (path.size() > 100 || !path.add(v)) return sb.append(path.size() > 100 ? "\"<unserializable: nested too deep>\"" : "\"<unserializable cycle>\"");
    java.util.List<Object> items = new java.util.ArrayList<Object>(); for (Object o : isMap ? ((java.util.Map<?, ?>) v).entrySet() : isArray ? java.util.Collections.emptyList() : (Iterable<?>) v) items.add(o);
    for (int i = 0; isArray && i < java.lang.reflect.Array.getLength(v); i++) items.add(java.lang.reflect.Array.get(v, i));
    sb.append(isMap ? '{' : '[');
    for (int i = 0; i < items.size(); i++) { java.util.Map.Entry<?, ?> e = isMap ? (java.util.Map.Entry<?, ?>) items.get(i) : null;
      write((i > 0 ? sb.append(',') : sb).append(isMap ? quote(String.valueOf(e.getKey())) + ":" : ""), isMap ? e.getValue() : items.get(i), path); }
    path.remove(v);
    return sb.append(isMap ? '}' : ']');
  }
  private static String quote(String s) { // a JSON string, or null
    StringBuilder sb = new StringBuilder("\"");
    for (char c : s == null ? new char[0] : s.toCharArray()) sb.append(c == '"' || c == '\\' ? "\\" + c : c < 0x20 ? String.format("\\u%04x", (int) c) : String.valueOf(c));
    return s == null ? "null" : sb.append('"').toString(); }
  private static String env(String name, String fallback) { String v = System.getenv(name); return v == null || v.isEmpty() ? fallback : v; }
  private static long number(String s, long fallback) { try { return Math.max(1, Long.parseLong(s)); } catch (Throwable e) { return fallback; } }
  private static String process() { // the pid (Java 8 has no ProcessHandle) and when the helper loaded
    try { return java.lang.management.ManagementFactory.getRuntimeMXBean().getName().split("@")[0] + "-" + System.currentTimeMillis(); } catch (Throwable e) { return "0-" + System.currentTimeMillis(); } }
}
// #endregion
