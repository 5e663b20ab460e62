package __PACKAGE_NAME__; // the package of the directory this file is saved in; delete this line in the default package

// #region agent log
/** debug-mode probe helper (AgentDebugLog.java): log(...) appends one event and never throws. Java 8+. */
public final class AgentDebugLog {
  private static final String PATH = "__APPEND_PATH__";
  private static final int MAX_DATA = 16000; // bytes of serialized data kept per event
  private static final java.util.regex.Pattern NUMBER = java.util.regex.Pattern.compile("-?\\d+(\\.\\d+)?([eE][-+]?\\d+)?");
  private static final java.io.FileOutputStream OUT = open(); // opened once in append mode, kept open

  /** Lazy data: the supplier runs inside the guard, so a throwing expression becomes an agentDebugDataError. */
  public static void log(String hypothesisId, String location, String message, java.util.function.Supplier<?> data) {
    Object value;
    try { value = data == null ? null : data.get(); } catch (Throwable e) { value = map("agentDebugDataError", String.valueOf(e)); }
    log(hypothesisId, location, message, value);
  }

  /** Eager data: a Map, Collection/Iterable, array, String, Number, Boolean, Character, enum or null. */
  public static void log(String hypothesisId, String location, String message, Object data) {
    try {
      String text = serialize(data);
      byte[] utf8 = text.getBytes(java.nio.charset.StandardCharsets.UTF_8);
      if (utf8.length > MAX_DATA) {
        int cut = Character.isHighSurrogate(text.charAt(999)) ? 999 : 1000;
        text = "{\"agentDebugTruncated\":true,\"bytes\":" + utf8.length + ",\"preview\":" + quote(text.substring(0, cut)) + "}";
      }
      String line = "{\"hypothesisId\":" + quote(hypothesisId) + ",\"location\":" + quote(location) + ",\"message\":"
          + quote(message) + ",\"data\":" + text + ",\"timestamp\":" + System.currentTimeMillis() + "}\n";
      if (OUT != null) OUT.write(line.getBytes(java.nio.charset.StandardCharsets.UTF_8)); // one write: lines never interleave
    } catch (Throwable ignored) { /* never break the program */ }
  }

  /** An ordered map that, unlike Map.of, allows nulls: map("n", n, "user", user). */
  public static java.util.Map<String, Object> map(Object... keysAndValues) {
    java.util.Map<String, Object> m = new java.util.LinkedHashMap<String, Object>();
    for (int i = 0; i + 1 < keysAndValues.length; i += 2) m.put(String.valueOf(keysAndValues[i]), keysAndValues[i + 1]);
    return m;
  }

  private static String serialize(Object data) {
    try { return write(new StringBuilder(), data, new java.util.IdentityHashMap<Object, Boolean>(), 0).toString(); }
    catch (Throwable e) { return "{\"agentDebugUnserializable\":" + quote(String.valueOf(e)) + "}"; }
  }
  private static StringBuilder write(StringBuilder sb, Object v, java.util.Map<Object, Boolean> path, int depth) {
    if (sb.length() > 1 << 20) throw new IllegalStateException("data larger than 1 MiB");
    boolean isMap = v instanceof java.util.Map, isList = v instanceof Iterable || (v != null && v.getClass().isArray());
    if (v == null || v instanceof Boolean) return sb.append(v);
    if (v instanceof Number) return sb.append(NUMBER.matcher(v.toString()).matches() ? v.toString() : quote(v.toString()));
    if (v instanceof CharSequence || v instanceof Character || v instanceof Enum) return sb.append(quote(v.toString()));
    if (!isMap && !isList) return sb.append(quote("<unserializable " + v.getClass().getName() + ">"));
    if (depth > 100) return sb.append("\"<unserializable: nested too deep>\"");
    if (path.put(v, Boolean.TRUE) != null) return sb.append("\"<unserializable cycle>\"");
    sb.append(isMap ? '{' : '[');
    int n = 0;
    if (isMap) {
      for (java.util.Map.Entry<?, ?> e : ((java.util.Map<?, ?>) v).entrySet()) {
        write(sb.append(n++ > 0 ? "," : "").append(quote(String.valueOf(e.getKey()))).append(':'), e.getValue(), path, depth + 1);
      }
    } else if (v instanceof Iterable) {
      for (Object o : (Iterable<?>) v) write(sb.append(n++ > 0 ? "," : ""), o, path, depth + 1);
    } else {
      for (int i = 0; i < java.lang.reflect.Array.getLength(v); i++) write(sb.append(i > 0 ? "," : ""), java.lang.reflect.Array.get(v, i), path, depth + 1);
    }
    path.remove(v);
    return sb.append(isMap ? '}' : ']');
  }
  private static java.io.FileOutputStream open() {
    try { return new java.io.FileOutputStream(PATH, true); } catch (Throwable e) { return null; }
  }
  private static String quote(String s) {
    if (s == null) return "null";
    StringBuilder sb = new StringBuilder(s.length() + 2).append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '"' || c == '\\') sb.append('\\').append(c);
      else if (c < 0x20) sb.append(String.format("\\u%04x", (int) c));
      else sb.append(c);
    }
    return sb.append('"').toString();
  }
}
// #endregion
