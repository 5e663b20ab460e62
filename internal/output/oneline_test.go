package output

import "testing"

// TestOneLineNeverPassesControlCharacters: text from the program under
// debug cannot move the cursor, recolour or clear the agent's terminal.
func TestOneLineNeverPassesControlCharacters(t *testing.T) {
	cases := map[string]string{
		"plain é 日本":         "plain é 日本",
		"a\nb\tc\rd":         `a\nb\tc\rd`,
		"\x1b[2J\x1b[31mred": `\u001b[2J\u001b[31mred`,
		"bell\x07 c1\u009b":  `bell\u0007 c1\u009b`,
		"del\x7f":            `del\u007f`,
	}
	for in, want := range cases {
		if got := oneLine(in); got != want {
			t.Errorf("oneLine(%q) = %q, want %q", in, got, want)
		}
	}
}
