package templates

func init() {
	register(language{id: "cpp", display: "C++", ext: "cpp", comment: "//", aliases: []string{"c++", "cxx", "cc"},
		ingests: []string{"file"}, encoding: SerializedJSON, helperPlacement: "file-start", verifiedLive: true,
		notes: []string{
			"Paste the helper at the start of the file, before its first #include. For several files, save it once as agent_debug_mode.hpp (it has an include guard) and #include \"agent_debug_mode.hpp\" in each instrumented file: everything in it is inline, so one program can include it from any number of files. C++17, standard library plus POSIX open/write only.",
			"The call passes a lambda returning one JSON text as std::string, so building it runs inside the helper's try/catch and a throw (std::stoi, .at(), a null const char *) becomes an agentDebugDataError. Build the text with your JSON library (nlohmann::json(v).dump()) or by concatenation with agent_debug_mode::json_string(text) around every string and std::to_string for numbers; never splice raw text into JSON.",
			"Newlines outside strings become spaces, so pretty-printed JSON is fine; a text that is not valid JSON (std::to_string of NaN or infinity gives nan/inf) makes the service reject the event, which status reports. The lambda captures by reference ([&]); safe from any thread; needs exceptions enabled (not -fno-exceptions).",
		}})
}
