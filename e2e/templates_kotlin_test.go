package e2e

import (
	"path/filepath"
	"time"
)

func init() {
	kotlinExprs := map[string]string{
		"nested":         `mapOf("a" to mapOf("b" to listOf(1, 2.5, mapOf("c" to null))), "ok" to true, "n" to -7)`,
		"strings":        `mapOf("s" to "quote\" backslash\\ newline\n tab\t ctrl\u0001 é 日本 🎉")`,
		"scalars":        `listOf(1, 2.5, true, null, "x")`,
		"oversize":       `mapOf("big" to "x".repeat(100000))`,
		"unserializable": `mapOf("node" to Node(), "cycle" to mutableListOf<Any?>().also { it.add(it) }, "nan" to Double.NaN)`,
		"throws":         `mapOf("config" to readConfig())`, // declared @Throws(IOException::class), as a Java method may be
		"secret":         `mapOf("password" to "hunter2", "apiToken" to "t0k3n", "user" to "ann")`,
		"thread":         `mapOf("thread" to t, "i" to i)`,
	}
	// Debian's kotlinc (1.3) from scripts/setup.sh.
	registerTemplateCase(templateCase{
		Language: "kotlin", Ingest: "file", Variant: "kotlinc-1.3", Runtimes: []string{"kotlinc", "java"},
		Source: "program.kt", FileName: "program.kt",
		Build:   [][]string{{"kotlinc", "program.kt", "-include-runtime", "-d", "program.jar"}},
		Run:     []string{"java", "-jar", "program.jar"},
		Threads: 4, Exprs: kotlinExprs, Timeout: 5 * time.Minute,
	})
	// A current compiler from Maven Central, installed by scripts/setup.d/kotlin.sh.
	current, _ := filepath.Abs("../tools/kotlin-current/bin/kotlinc")
	registerTemplateCase(templateCase{
		Language: "kotlin", Ingest: "file", Variant: "kotlinc-current", Runtimes: []string{current, "java"},
		Source: "program.kt", FileName: "program.kt",
		Build:   [][]string{{current, "program.kt", "-include-runtime", "-d", "program.jar"}},
		Run:     []string{"java", "-jar", "program.jar"},
		Threads: 4, Exprs: kotlinExprs, Timeout: 5 * time.Minute,
	})
}
