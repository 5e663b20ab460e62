package logpoints

// States of a logpoint in a cycle, as list and reproduce report them.
const (
	StateHit            = "hit"             // events arrived from it
	StateNeverHit       = "never_hit"       // a process placed it, the line never ran
	StateNeverInstalled = "never_installed" // no process placed it: its file never loaded, or the line could not take it
)

// Installs is what the hooks reported about one logpoint in a cycle.
type Installs struct {
	Installed int    `json:"installed"` // processes that placed it
	Failed    int    `json:"failed"`    // processes that could not
	Reason    string `json:"reason,omitempty"`
}

// Status is one logpoint with what became of it in the current cycle.
type Status struct {
	Logpoint
	State     string `json:"state"`
	Hits      int64  `json:"hits"`
	Installed int    `json:"installedProcesses"`
	Failed    int    `json:"failedProcesses"`
	Reason    string `json:"reason,omitempty"` // never installed: why
}

// HitKey names the events of one logpoint: its location and label.
type HitKey struct{ Location, HypothesisID string }

// Summarize gives each logpoint its state. hits counts the cycle's events
// by location and label (a code probe that sends the very same location
// and label counts too: there is no telling them apart).
func Summarize(lps []Logpoint, installs map[string]Installs, hits map[HitKey]int64) []Status {
	out := make([]Status, 0, len(lps))
	for _, lp := range lps {
		in := installs[lp.ID]
		st := Status{Logpoint: lp, Hits: hits[HitKey{lp.Location, lp.HypothesisID}], Installed: in.Installed, Failed: in.Failed}
		switch {
		case st.Hits > 0:
			st.State = StateHit
		case in.Installed > 0:
			st.State = StateNeverHit
		case in.Failed > 0:
			st.State, st.Reason = StateNeverInstalled, in.Reason
		default:
			st.State = StateNeverInstalled
			st.Reason = "its file was not loaded in this cycle"
		}
		out = append(out, st)
	}
	return out
}
