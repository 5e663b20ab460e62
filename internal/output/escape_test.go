package output

import (
	"encoding/json"
	"testing"
)

// TestEscape: text from the program under debug cannot start a new line,
// a new table column, move the cursor, recolour or clear the agent's
// terminal, or reorder what it shows; everything else is left as it is.
func TestEscape(t *testing.T) {
	cases := map[string]string{
		"plain é 日本 🙂 C:\\dir": "plain é 日本 🙂 C:\\dir",
		"a\nb\tc\rd":           `a\nb\tc\rd`,
		"\x1b[2J\x1b[31mred":   `\u001b[2J\u001b[31mred`,
		"bell\x07 c1\u009b":    `bell\u0007 c1\u009b`,
		"nul\x00 del\x7f":      `nul\u0000 del\u007f`,
		"nel\u0085":            `nel\u0085`,
		"ls\u2028ps\u2029":     `ls\u2028ps\u2029`,
		"rlo\u202eevil\u202c":  `rlo\u202eevil\u202c`,
		"\u061c\u200e\u200f\u202a\u202b\u202d\u2066\u2067\u2068\u2069": `\u061c\u200e\u200f\u202a\u202b\u202d\u2066\u2067\u2068\u2069`,
		"bad\xff\x9bbytes":      `bad\xff\x9bbytes`,
		"\ufffd is a character": "\ufffd is a character",
		"zwj 👩\u200d💻":          "zwj 👩\u200d💻",
	}
	for in, want := range cases {
		if got := Escape(in); got != want {
			t.Errorf("Escape(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestEscapeKeepsJSON: data is JSON text; escaping it leaves JSON that
// decodes to the same value.
func TestEscapeKeepsJSON(t *testing.T) {
	in := "{\"k\u202e\":\"del\x7f c1\u0085 ls\u2028 rlo\u202e\",\"n\":[1,2]}"
	var want, got any
	if err := json.Unmarshal([]byte(in), &want); err != nil {
		t.Fatal(err)
	}
	out := Escape(in)
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("Escape(%q) = %q, not JSON: %v", in, out, err)
	}
	a, _ := json.Marshal(want)
	b, _ := json.Marshal(got)
	if string(a) != string(b) {
		t.Errorf("Escape changed the value: %s, want %s", b, a)
	}
}

func BenchmarkEscapePlain(b *testing.B) {
	s := `{"amount":"12.40","currency":"EUR","usd":"13.39","id":"o-1042"} report.py:44 amount converted to USD`
	for b.Loop() {
		Escape(s)
	}
}
