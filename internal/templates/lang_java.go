package templates

func init() {
	register(language{id: "java", display: "Java", ext: "java", comment: "//", aliases: nil,
		ingests: []string{"file"}, encoding: NativeJSON, helperPlacement: "own-file", helperFile: "AgentDebugLog.java", verifiedLive: true,
		extraPlaceholders: []Placeholder{{"__PACKAGE_NAME__", "the package of the directory AgentDebugLog.java is saved in, e.g. com.example.app (in the default package, delete the package line)"}},
		notes: []string{
			"The helper is a complete file of its own, not a paste: a public class needs its own file. Save it once per program as AgentDebugLog.java beside the code you instrument, with __PACKAGE_NAME__ set to that directory's package; calls in other packages import it (import com.example.app.AgentDebugLog;, in its own region). One per module in a multi-module build. Standard library only; compiles as Java 8 and later.",
			"Pass data as a lambda (as the call template does): the Supplier runs inside the helper's guard, so a throwing expression (Map.of with a null, a NullPointerException) becomes an agentDebugDataError. A lambda captures only effectively final locals: if javac objects, copy the variable first (final int i0 = i;) inside the region, or drop the `() ->` to pass the value eagerly.",
			"Data may be a Map, Iterable/Collection, array, String, Number, Boolean, Character, enum or null, nested; AgentDebugLog.map(\"k\", v, …) builds an ordered map that allows nulls (Map.of does not). Other objects arrive as \"<unserializable ClassName>\" (pass the fields you need, or String.valueOf(obj)); cycles as \"<unserializable cycle>\"; NaN and infinities as strings.",
			"The append file is opened once, when the class loads, and each event is one write to it; a path that cannot be opened then makes every call a cheap no-op. When done, delete AgentDebugLog.java (and any imports of it).",
		}})
}
