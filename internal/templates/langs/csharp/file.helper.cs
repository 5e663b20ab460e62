// #region agent log
// AgentDebugLog.Log(hypothesisId, location, message, () => data) appends one event and never throws. No usings; Mono and .NET.
public static class AgentDebugLog
{
    const string AppendPath = "__APPEND_PATH__";
    const int MaxData = 16000; // bytes of serialized data kept per event
    static readonly object Gate = new object(); static bool noLibc; // the fallback writer's lock; set when libc is missing
    [System.Runtime.InteropServices.DllImport("libc")] static extern System.IntPtr fopen(string path, string mode);
    [System.Runtime.InteropServices.DllImport("libc")] static extern int fileno(System.IntPtr file);
    [System.Runtime.InteropServices.DllImport("libc")] static extern System.IntPtr write(int fd, byte[] buf, System.UIntPtr count);
    [System.Runtime.InteropServices.DllImport("libc")] static extern int fclose(System.IntPtr file);
    public static void Log(string hypothesisId, string location, string message, System.Func<object> data)
    {
        try
        {
            object value; // the lambda runs here, inside the guard
            try { value = data == null ? null : data(); }
            catch (System.Exception e) { value = new System.Collections.Hashtable { { "agentDebugDataError", e.GetType().Name + ": " + e.Message } }; }
            var sb = new System.Text.StringBuilder();
            try { Write(sb, value, new System.Collections.Generic.List<object>()); }
            catch (System.Exception e) { sb.Clear().Append("{\"agentDebugUnserializable\":" + Str(e.GetType().Name + ": " + e.Message) + "}"); }
            string text = sb.ToString(); // past the cap serializing stops early, so bytes means "at least"
            int bytes = System.Text.Encoding.UTF8.GetByteCount(text);
            if (bytes > MaxData) text = "{\"agentDebugTruncated\":true,\"bytes\":" + bytes + ",\"preview\":" + Str(text.Substring(0, 1000)) + "}";
            Append(new System.Text.UTF8Encoding(false).GetBytes("{\"hypothesisId\":" + Str(hypothesisId) + ",\"location\":" + Str(location)
                + ",\"message\":" + Str(message) + ",\"data\":" + text + ",\"timestamp\":" + (System.DateTime.UtcNow.Ticks - 621355968000000000L) / 10000 + "}\n"));
        }
        catch (System.Exception) { } // never break the program
    }
    static void Append(byte[] line) // one write(2) on an O_APPEND descriptor: threads and processes never interleave lines
    {
        try { if (!noLibc) { var f = fopen(AppendPath, "a"); if (f != System.IntPtr.Zero) { write(fileno(f), line, (System.UIntPtr)line.Length); fclose(f); } return; } }
        catch (System.Exception) { noLibc = true; } // no libc (Windows): FileMode.Append writes where the end was at open, so lock
        lock (Gate) using (var s = new System.IO.FileStream(AppendPath, System.IO.FileMode.Append, System.IO.FileAccess.Write, System.IO.FileShare.ReadWrite, 1)) s.Write(line, 0, line.Length);
    }
    // JSON for primitives, strings, IDictionary, IEnumerable and public members of non-System objects (anonymous types); else ToString()
    static void Write(System.Text.StringBuilder sb, object v, System.Collections.Generic.List<object> path)
    {
        var inv = System.Globalization.CultureInfo.InvariantCulture;
        double d = v is double || v is float ? System.Convert.ToDouble(v, inv) : 0;
        if (sb.Length > MaxData) return; // too big already: it becomes a truncation marker
        else if (v == null) sb.Append("null");
        else if (v is bool) sb.Append((bool)v ? "true" : "false");
        else if (v is double || v is float) sb.Append(double.IsNaN(d) || double.IsInfinity(d) ? Str(d.ToString(inv)) : ((System.IFormattable)v).ToString("R", inv));
        else if ((v.GetType().IsPrimitive && !(v is char)) || v is decimal) sb.Append(System.Convert.ToString(v, inv));
        else if (v is string || v is char || (v is System.ValueType && v is System.IFormattable) || v is System.Delegate) sb.Append(Str(System.Convert.ToString(v, inv)));
        else if (path.Count >= 32 || path.Exists(p => ReferenceEquals(p, v))) sb.Append("\"<unserializable: cycle or nesting over 32>\"");
        else
        {
            var list = v as System.Collections.IEnumerable;
            var dict = v as System.Collections.IDictionary ?? (list != null || (v.GetType().Namespace ?? "").StartsWith("System") ? null : Members(v));
            if (dict == null && list == null) { sb.Append(Str(System.Convert.ToString(v, inv))); return; }
            path.Add(v);
            var de = dict != null ? dict.GetEnumerator() : null; var e = de ?? list.GetEnumerator();
            sb.Append(de != null ? '{' : '[');
            for (int n = 0; e.MoveNext(); n++)
            {
                sb.Append(n > 0 ? "," : "").Append(de != null ? Str(System.Convert.ToString(de.Key, inv)) + ":" : "");
                Write(sb, de != null ? de.Value : e.Current, path);
            }
            sb.Append(de != null ? '}' : ']'); path.RemoveAt(path.Count - 1);
        }
    }
    static System.Collections.IDictionary Members(object v) // public fields and properties
    {
        var d = new System.Collections.Specialized.OrderedDictionary();
        foreach (var m in v.GetType().FindMembers(System.Reflection.MemberTypes.Field | System.Reflection.MemberTypes.Property,
            System.Reflection.BindingFlags.Public | System.Reflection.BindingFlags.Instance, null, null))
            try { d[m.Name] = m is System.Reflection.FieldInfo ? ((System.Reflection.FieldInfo)m).GetValue(v) : ((System.Reflection.PropertyInfo)m).GetValue(v, null); }
            catch (System.Exception e) { d[m.Name] = "<unserializable: " + (e.InnerException ?? e).Message + ">"; }
        return d;
    }
    static string Str(string s) // a JSON string: quotes, backslashes and control characters escaped
    {
        var sb = new System.Text.StringBuilder("\"");
        foreach (char c in s ?? "") sb.Append(c == '"' || c == '\\' ? "\\" + c : c < ' ' ? "\\u" + ((int)c).ToString("x4") : c.ToString());
        return s == null ? "null" : sb.Append('"').ToString();
    }
}
// #endregion
