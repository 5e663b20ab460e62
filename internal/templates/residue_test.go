package templates

import "testing"

// A helper file's own lines outside its region are recognised, with any
// package name and with or without the template's comment; nothing else is.
func TestHelperResidue(t *testing.T) {
	for _, c := range []struct {
		file, line string
		want       bool
	}{
		{"pkg/agent_debug_log.go", "package main", true},
		{"pkg/agent_debug_log.go", "package cache  ", true},
		{"a.go", "package main // the helper", true},
		{"a.go", `import "fmt"`, false},
		{"a.go", "func main() {}", false},
		{"a.go", "package main; var x = 1", false},
		{"src/com/x/AgentDebugLog.java", "package com.example.app; // the package of the directory this file is saved in; delete this line in the default package", true},
		{"AgentDebugLog.java", "package com.example.app;", true},
		{"AgentDebugLog.java", "import java.util.Map;", false},
		{"AgentDebugLog.kt", "package com.example", true},
		{"AgentDebugLog.kt", "import java.io.File", false},
		{"agent_debug_log.py", "package x", false},
		{"agent_debug_log.py", "", false},
	} {
		if got := HelperResidue(c.file, c.line); got != c.want {
			t.Errorf("%s %q: %v, want %v", c.file, c.line, got, c.want)
		}
	}
}
