package capture

import "testing"

// TestSourceLinesRedactedAsCode: frozen source lines hide secret literals
// but not the code a secret-looking name stands in, and a file whose name
// holds a secret word keeps its location.
func TestSourceLinesRedactedAsCode(t *testing.T) {
	lines := []string{"token = self.refresh()", `password = "hunter2"`, "def load(token: str) -> None:", "key = 'ghp_16C7e42F292c6912E7710c838347Ae178B4a'"}
	r := Request{SourceRoot: "/src", RegionScan: RegionScan{State: Complete}, Sources: []Source{{Location: "auth/token_store.py:2", State: Complete,
		Files: []SourceFile{{File: "auth/token_store.py", Line: 2, StartLine: 1, Lines: lines, TotalLines: 4}}}}}
	got, err := checkRequest(r)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"token = self.refresh()", `password = "[REDACTED:secret-field]"`, "def load(token: str) -> None:", "key = '[REDACTED:github-token]'"}
	f := got.Sources[0].Files[0]
	for i := range want {
		if f.Lines[i] != want[i] {
			t.Errorf("line %d = %q, want %q", i+1, f.Lines[i], want[i])
		}
	}
	if got.Sources[0].Location != "auth/token_store.py:2" || got.SourceScan.Redactions != 2 {
		t.Errorf("location %q, %d redactions", got.Sources[0].Location, got.SourceScan.Redactions)
	}
}
