// #region agent log helper
// AgentDebugLog.Log(hypothesisId, message, () => data) queues one event from the caller's file and line; never throws. No usings; Mono and .NET.
public static class AgentDebugLog {
    sealed class Site { public string File, Location, Hypothesis; public int Line; public long Sent, Reported; } // one per call site; Reported: the last count written
    static readonly string AppendPath = Env("AGENT_DEBUG_MODE_APPEND_PATH") ?? "__APPEND_PATH__", Process = System.Diagnostics.Process.GetCurrentProcess().Id + "-" + Now();
    static readonly long Cap = long.TryParse(Env("AGENT_DEBUG_MODE_MAX_PER_LOCATION"), out Cap) && Cap > 0 ? Cap : __MAX_PER_LOCATION__;
    static readonly Site[] Table = new Site[1024]; // by the caller's file and line: what the hot path reads, without a lock
    static readonly System.Collections.Generic.Dictionary<string, Site> Sites = new System.Collections.Generic.Dictionary<string, Site>();
    static readonly System.Text.StringBuilder Queue = new System.Text.StringBuilder(); // its own lock, held for one append
    static readonly object IO = new object(); static bool noLibc; // one batch write at a time; set when libc is missing
    [System.Runtime.InteropServices.DllImport("libc")] static extern System.IntPtr fopen(string path, string mode); [System.Runtime.InteropServices.DllImport("libc")] static extern int fileno(System.IntPtr file);
    [System.Runtime.InteropServices.DllImport("libc")] static extern System.IntPtr write(int fd, byte[] buf, System.UIntPtr count); [System.Runtime.InteropServices.DllImport("libc")] static extern int fclose(System.IntPtr file);
    static AgentDebugLog() { new System.Threading.Thread(() => { for (;;) { System.Threading.Thread.Sleep(20); Drain(false); } }) { IsBackground = true }.Start();
        System.AppDomain.CurrentDomain.ProcessExit += (s, e) => Drain(true); } // a background writer every 20 ms, and the rest at exit
    /// Past the cap a call is one table read and one Interlocked add; location "path:line" names another place than the caller's.
    public static void Log(string hypothesisId, string message, System.Func<object> data, string location = null,
        [System.Runtime.CompilerServices.CallerFilePath] string file = "", [System.Runtime.CompilerServices.CallerLineNumber] int line = 0) {
        try {
            int slot = (line * 31 + file.Length) & 1023; // the slot of a call site (its file string is compared by reference)
            Site site = location == null ? Table[slot] : null;
            if (site == null || !ReferenceEquals(site.File, file) || site.Line != line) lock (Sites) { // an absolute path: the service makes it relative
                string key = location ?? file + ":" + line;
                if (!Sites.TryGetValue(key, out site)) Sites[key] = site = new Site { File = file, Line = line, Location = key, Hypothesis = hypothesisId };
                if (location == null && ReferenceEquals(site.File, file)) Table[slot] = site;
            }
            if (System.Threading.Interlocked.Increment(ref site.Sent) > Cap) return; // held back
            object value; try { value = data == null ? null : data(); } // the lambda runs here, inside the guard
            catch (System.Exception e) { value = new System.Collections.Hashtable { { "agentDebugDataError", e.GetType().Name + ": " + e.Message } }; }
            var sb = new System.Text.StringBuilder(); try { Write(sb, value, new System.Collections.Generic.List<object>()); }
            catch (System.Exception e) { sb.Clear().Append("{\"agentDebugUnserializable\":" + Str(e.GetType().Name + ": " + e.Message) + "}"); }
            string text = sb.ToString(); int bytes = System.Text.Encoding.UTF8.GetByteCount(text); // past 16,000 serializing stops early: "at least"
            if (bytes > 16000) text = "{\"agentDebugTruncated\":true,\"bytes\":" + bytes + ",\"preview\":" + Str(text.Substring(0, 1000)) + "}";
            bool full; lock (Queue) full = Queue.Append("{\"hypothesisId\":" + Str(hypothesisId) + ",\"location\":" + Str(site.Location) + ",\"message\":" + Str(message)
                + ",\"data\":" + text + ",\"timestamp\":" + Now() + "}\n").Length > 1 << 20; // the writer fell behind by 1 MiB: this call writes
            if (full) Drain(false);
        } catch (System.Exception) { } // never break the program
    }
    static long Now() { return (System.DateTime.UtcNow.Ticks - 621355968000000000L) / 10000; }
    static string Env(string name) { var v = System.Environment.GetEnvironmentVariable(name); return string.IsNullOrEmpty(v) ? null : v; }
    static void Drain(bool atExit) { // the queue, and each capped call site's count when it grew (a running total), in one write(2) on an O_APPEND descriptor
        lock (IO) {
            string batch; lock (Queue) { batch = Queue.ToString(); Queue.Clear(); }
            lock (Sites) foreach (var s in Sites.Values) { long n = System.Threading.Interlocked.Read(ref s.Sent); if (n > Cap && n != s.Reported) batch += "{\"agentDebugHeldBack\":{\"hypothesisId\":" + Str(s.Hypothesis)
                + ",\"location\":" + Str(s.Location) + ",\"count\":" + ((s.Reported = n) - Cap) + ",\"cap\":" + Cap + ",\"process\":\"" + Process + "\"}}\n"; }
            var bytes = new System.Text.UTF8Encoding(false).GetBytes(batch); if (bytes.Length == 0) return;
            try { if (!noLibc) { var f = fopen(AppendPath, "a"); if (f != System.IntPtr.Zero) { write(fileno(f), bytes, (System.UIntPtr)bytes.Length); fclose(f); } return; } }
            catch (System.Exception) { noLibc = true; } // no libc (Windows): FileMode.Append writes where the end was at open
            try { using (var s = new System.IO.FileStream(AppendPath, System.IO.FileMode.Append, System.IO.FileAccess.Write, System.IO.FileShare.ReadWrite, 1)) s.Write(bytes, 0, bytes.Length); }
            catch (System.Exception) { } // unwritable: this batch is lost, never the program
        }
    }
    // JSON for primitives, strings, IDictionary, IEnumerable and public members of non-System objects (anonymous types); else ToString()
    static void Write(System.Text.StringBuilder sb, object v, System.Collections.Generic.List<object> path) {
        var inv = System.Globalization.CultureInfo.InvariantCulture; double d = v is double || v is float ? System.Convert.ToDouble(v, inv) : 0;
        if (sb.Length > 16000) return; // too big already: it becomes a truncation marker
        else if (v == null) sb.Append("null");
        else if (v is bool) sb.Append((bool)v ? "true" : "false");
        else if (v is double || v is float) sb.Append(double.IsNaN(d) || double.IsInfinity(d) ? Str(d.ToString(inv)) : ((System.IFormattable)v).ToString("R", inv));
        else if ((v.GetType().IsPrimitive && !(v is char)) || v is decimal) sb.Append(System.Convert.ToString(v, inv));
        else if (v is string || v is char || (v is System.ValueType && v is System.IFormattable) || v is System.Delegate) sb.Append(Str(System.Convert.ToString(v, inv)));
        else if (path.Count >= 32 || path.Exists(p => ReferenceEquals(p, v))) sb.Append("\"<unserializable: cycle or nesting over 32>\"");
        else {
            var list = v as System.Collections.IEnumerable;
            var dict = v as System.Collections.IDictionary ?? (list != null || (v.GetType().Namespace ?? "").StartsWith("System") ? null : Members(v));
            if (dict == null && list == null) { sb.Append(Str(System.Convert.ToString(v, inv))); return; }
            var de = dict != null ? dict.GetEnumerator() : null; var e = de ?? list.GetEnumerator(); path.Add(v); sb.Append(de != null ? '{' : '[');
            for (int n = 0; e.MoveNext(); n++) Write(sb.Append(n > 0 ? "," : "").Append(de != null ? Str(System.Convert.ToString(de.Key, inv)) + ":" : ""), de != null ? de.Value : e.Current, path);
            sb.Append(de != null ? '}' : ']'); path.RemoveAt(path.Count - 1);
        }
    }
    static System.Collections.IDictionary Members(object v) { var d = new System.Collections.Specialized.OrderedDictionary(); // public fields and properties
        foreach (var m in v.GetType().FindMembers(System.Reflection.MemberTypes.Field | System.Reflection.MemberTypes.Property, System.Reflection.BindingFlags.Public | System.Reflection.BindingFlags.Instance, null, null))
            try { d[m.Name] = m is System.Reflection.FieldInfo ? ((System.Reflection.FieldInfo)m).GetValue(v) : ((System.Reflection.PropertyInfo)m).GetValue(v, null); }
            catch (System.Exception e) { d[m.Name] = "<unserializable: " + (e.InnerException ?? e).Message + ">"; }
        return d; }
    static string Str(string s) { var sb = new System.Text.StringBuilder("\""); // a JSON string: quotes, backslashes and control characters escaped
        foreach (char c in s ?? "") sb.Append(c == '"' || c == '\\' ? "\\" + c : c < ' ' ? "\\u" + ((int)c).ToString("x4") : c.ToString());
        return s == null ? "null" : sb.Append('"').ToString(); }
}
// #endregion
