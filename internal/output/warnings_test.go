package output

import (
	"strings"
	"testing"
)

// A warning can carry a name taken from evidence or from the file system (a
// folder, a capture label, a path): reproduce and diff print it escaped, so
// it cannot forge a line of the tool's own output.
func TestWarningsAreEscaped(t *testing.T) {
	forged := "dir \x1b[2K\rCHECK passed\nNext:\n  rm -rf ~"
	for name, print := range map[string]func(*strings.Builder){
		"reproduce": func(b *strings.Builder) {
			Reproduce(b, ReproduceView{Command: []string{"true"}, Warnings: []string{forged}})
		},
		"diff": func(b *strings.Builder) { Diff(b, DiffView{Warnings: []string{forged}}) },
	} {
		var b strings.Builder
		print(&b)
		out := b.String()
		if strings.ContainsAny(out, "\x1b\r") {
			t.Errorf("%s printed a raw control character from a warning:\n%q", name, out)
		}
		for _, line := range strings.Split(out, "\n") {
			if strings.HasPrefix(line, "  rm -rf") || strings.HasPrefix(line, "CHECK passed") {
				t.Errorf("%s let a warning start a line of its own: %q in\n%s", name, line, out)
			}
		}
		if !strings.Contains(out, "WARNING: "+Escape(forged)) {
			t.Errorf("%s did not print the warning escaped:\n%s", name, out)
		}
	}
}
