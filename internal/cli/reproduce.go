package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentic-debug-mode/debug-mode/internal/capture"
	"github.com/agentic-debug-mode/debug-mode/internal/client"
	"github.com/agentic-debug-mode/debug-mode/internal/logpoints"
	"github.com/agentic-debug-mode/debug-mode/internal/output"
	"github.com/agentic-debug-mode/debug-mode/internal/probes"
	"github.com/agentic-debug-mode/debug-mode/internal/reproduce"
	"github.com/agentic-debug-mode/debug-mode/internal/service"
	"github.com/agentic-debug-mode/debug-mode/internal/sessionenv"
	"github.com/agentic-debug-mode/debug-mode/internal/store"
)

type reproduceOptions struct {
	*env
	session        string
	keep           bool
	capture        string
	diff           string
	compare        diffFlags
	diffReq        capture.DiffOptions // from --diff and compare, validated
	timeout        time.Duration
	maxPerLocation int64
	args           []string
}

// maxFirstRejections is how many rejection reasons the report quotes.
const maxFirstRejections = 3

func newReproduceCmd(e *env) *cobra.Command {
	o := &reproduceOptions{env: e}
	cmd := &cobra.Command{
		Use:   "reproduce --session <id> [flags] -- <command> [args...]",
		Short: "Run the reproduction in a new cycle and report its evidence, exit status and output",
		Long: `Run the command that reproduces the bug and report what it produced, in one
step: a new cycle (as reset; --keep appends to the current one), the command
run directly (no shell: write sh -c '...' for one) in the current folder with
stdin from /dev/null, its whole process tree waited for, every delivered
event taken in, then one short report.

The command, and every process it starts, gets the session in its
environment, for helpers that read it:
  AGENT_DEBUG_MODE_SESSION           the session id
  AGENT_DEBUG_MODE_INGEST_URL        the Ingest URL
  AGENT_DEBUG_MODE_APPEND_PATH       the Append Path
  AGENT_DEBUG_MODE_MAX_PER_LOCATION  events a helper sends per location per
                                     process before it holds the rest back

The command runs in a process group of its own; processes that leave it (a
setsid, a double fork) are still waited for. At --timeout the whole tree is
ended (SIGTERM, then SIGKILL a second later) and the report says so. After
the last process ends, reproduce waits until no HTTP delivery has arrived for
200 ms (at most 2 s) and drains the Append Path, so the counts it prints are
final; it says how long it waited.

The report: the exit status and duration, the last 20 lines of stdout and
stderr (redacted like evidence, control characters escaped), events per
hypothesis label, rejected records with their first reasons, events helpers
held back at their cap, the agent log regions under the current folder that
never fired, with --capture the capture of this cycle, with --diff the
comparison of this cycle with that capture, and the next commands. The output
(at most 1 MiB per stream, head and tail) is kept with the cycle until the
next reproduce or reset: page it with debug-mode output.

Exit status 0 whenever the command ran and its evidence was read, whatever
the command returned (its status is in the report); 8 when the timeout ended
it; 9 when it could not start (not found, not executable).`,
		Example: `  debug-mode reproduce --session 707225a6-8e0f-4db4-b64b-e261bd6a861a -- python3 report.py
  debug-mode reproduce --session 707225a6-8e0f-4db4-b64b-e261bd6a861a --capture before-fix -- go test ./cache
  debug-mode reproduce --session 707225a6-8e0f-4db4-b64b-e261bd6a861a --diff c-3f2a9b1c0d4e -- go test ./cache
  debug-mode reproduce --session 707225a6-8e0f-4db4-b64b-e261bd6a861a --timeout 2m -- sh -c 'make && ./server --once'`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := capChanged(cmd, o.maxPerLocation); err != nil {
				return err
			}
			o.args = args
			return o.run(cmd.Context())
		},
	}
	fl := cmd.Flags()
	// The command's own flags are its own: flags end at the first argument.
	fl.SetInterspersed(false)
	fl.StringVar(&o.session, "session", "", "session id (from debug-mode create)")
	fl.BoolVar(&o.keep, "keep", false, "append to the current cycle instead of starting a new one")
	fl.StringVar(&o.capture, "capture", "", `capture this cycle afterwards, with this label (e.g. before-fix)`)
	fl.StringVar(&o.diff, "diff", "", "compare this cycle afterwards with this capture (the one taken before the fix)")
	o.compare.add(fl, " (with --diff)")
	fl.DurationVar(&o.timeout, "timeout", reproduce.DefaultTimeout, "end the command's whole process tree after this long")
	fl.Int64Var(&o.maxPerLocation, "max-per-location", 0, "set the session's cap of events per location per process (default: keep it; a new session has 10000)")
	return cmd
}

func (o *reproduceOptions) run(ctx context.Context) error {
	id, err := sessionID(o.session)
	if err != nil {
		return err
	}
	switch {
	case len(o.args) == 0:
		return usagef("give the command to run after --, e.g. debug-mode reproduce --session %s -- python3 report.py", id)
	case strings.TrimSpace(o.args[0]) == "":
		return usagef("the command after -- is empty (%q); give the program to run as the first word after --, e.g. debug-mode reproduce --session %s -- python3 report.py (a shell command line: -- sh -c '…')", o.args[0], id)
	case o.timeout <= 0 || o.timeout > reproduce.MaxTimeout:
		return usagef("--timeout must be more than 0 and at most %s, e.g. 30s or 10m", reproduce.MaxTimeout)
	case o.maxPerLocation < 0 || o.maxPerLocation > sessionenv.MaxMaxPerLocation:
		return usagef("--max-per-location must be between 1 and %d", sessionenv.MaxMaxPerLocation)
	case o.capture != "" && strings.TrimSpace(o.capture) == "":
		return usagef("--capture takes a label, e.g. --capture before-fix")
	}
	var diffFrom string
	if o.diff != "" {
		if diffFrom, err = captureID("--diff", o.diff); err != nil {
			return err
		}
		if o.diffReq, err = o.compare.options(diffFrom, ""); err != nil {
			return err
		}
	} else if o.compare.set() {
		return usagef("--mode, --fields and --ignore say how --diff compares: add --diff <capture>, or run debug-mode diff afterwards")
	}
	path, err := reproduce.Resolve(o.args[0])
	if err != nil {
		return notStarted(err)
	}
	dir, err := os.Getwd()
	if err != nil {
		return err
	}
	c, err := o.connect()
	if err != nil {
		return err
	}
	if diffFrom != "" {
		// Before anything runs: a wrong capture id must not cost a reproduction.
		var d service.CaptureDetail
		if err := c.Call(http.MethodGet, "/v1/sessions/"+id+"/captures/"+diffFrom, nil, &d); err != nil {
			return err
		}
	}
	var started service.ReproduceStarted
	if err := c.Call(http.MethodPost, "/v1/sessions/"+id+"/reproduce", service.ReproduceRequest{Keep: o.keep, MaxPerLocation: o.maxPerLocation}, &started); err != nil {
		return err
	}

	// The logpoints' hooks go into the command's environment only when the
	// session has logpoints: without them the command runs as it would.
	var envr service.Environment
	if err := c.Call(http.MethodGet, "/v1/sessions/"+id+"/environment", nil, &envr); err != nil {
		return err
	}
	vals := sessionenv.Values{SessionID: id, IngestURL: started.IngestURL, AppendPath: started.AppendPath, MaxPerLocation: started.MaxPerLocation}
	env := commandEnv(vals)
	if envr.Logpoints > 0 {
		vals.LogpointsFile = envr.LogpointsFile
		env = logpoints.Inject(os.Environ(), vals, envr.Hooks).Entries()
	}

	// The helpers kept outside the project are what the command imports:
	// check them (and write them again where changed) before it runs.
	_, helperNotes, helperErr := writeHelpers()
	if helperErr != nil {
		helperNotes = append(helperNotes, helperErr.Error())
	}

	stop := func() {}
	if o.env.capture == nil { // a command line of its own, not a call inside the MCP server (whose caller cancels ctx)
		// Ctrl-C or a kill ends the command's tree and still reports.
		ctx, stop = signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	}
	res, err := reproduce.Run(ctx, reproduce.Spec{
		Path: path, Args: o.args, Timeout: o.timeout,
		Env: env,
		// A long reproduction must not find the service gone idle.
		Keepalive: func() { c.Call(http.MethodGet, "/v1/health", nil, nil) },
	})
	stop()
	var ns *reproduce.NotStartedError
	if errors.As(err, &ns) {
		return notStarted(fmt.Errorf("%w (cycle %d was started for it and is empty)", err, started.Cycle))
	}
	if err != nil {
		return err
	}

	exit := store.Exit{Code: res.ExitCode, Signal: res.Signal, TimedOut: res.End == reproduce.EndTimeout,
		Interrupted: res.End == reproduce.EndInterrupted, DurationMs: res.TreeMs}
	end := service.ReproduceEndRequest{Reproduction: started.Reproduction, Cycle: started.Cycle, Command: o.args, Exit: exit,
		Stdout: rawStream(res.Stdout), Stderr: rawStream(res.Stderr)}
	var ended service.ReproduceEnded
	if err := c.Call(http.MethodPost, "/v1/sessions/"+id+"/reproduce/end", end, &ended); err != nil {
		return err
	}
	v := o.view(c, id, dir, started, res, ended, diffFrom)
	v.Warnings = append(helperNotes, v.Warnings...)
	if err := o.printer().Result("reproduce", v, func(w io.Writer) { output.Reproduce(w, v) }); err != nil {
		return err
	}
	switch res.End {
	case reproduce.EndTimeout:
		return &exitError{code: ExitTimeout, kind: "timeout", msg: fmt.Sprintf("the command did not end within %s, so its whole process tree was ended; the report shows what arrived until then (give it longer with --timeout)", o.timeout)}
	case reproduce.EndInterrupted:
		return &exitError{code: ExitFailure, kind: "interrupted", msg: "interrupted: the command's whole process tree was ended; the report shows what arrived until then"}
	}
	return nil
}

// notStarted is the error of a command that could not start.
func notStarted(err error) error {
	return &exitError{code: ExitNotStarted, kind: "not_started", msg: err.Error()}
}

// commandEnv is this process's environment with the session's values in
// place of any inherited ones.
func commandEnv(v sessionenv.Values) []string {
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool {
		name, _, _ := strings.Cut(kv, "=")
		return slices.Contains(sessionenv.Names, name)
	})
	return append(env, v.Environ()...)
}

func rawStream(s *reproduce.Stream) service.RawStream {
	kept, total, omitted := s.Kept()
	return service.RawStream{Kept: kept, TotalBytes: total, OmittedBytes: omitted}
}

// view assembles the report: the run, the settled evidence, the regions
// that never fired, and the capture or the diff when asked for.
func (o *reproduceOptions) view(c *client.Client, id, dir string, started service.ReproduceStarted, res reproduce.Result,
	ended service.ReproduceEnded, diffFrom string) output.ReproduceView {
	st := ended.Status
	v := output.ReproduceView{SessionID: id, Cycle: st.Epoch, Kept: started.Kept, Reproduction: started.Reproduction,
		Command: o.args, Dir: dir, Settle: ended.Settle, Stdout: ended.Stdout, Stderr: ended.Stderr, Warnings: []string{}, Next: []string{}, FirstEvents: []json.RawMessage{},
		Run: output.RunView{ExitCode: res.ExitCode, Signal: res.Signal, CoreDumped: res.CoreDumped, End: res.End,
			DurationMs: res.TreeMs, CommandMs: res.CommandMs, Processes: res.Processes, Signalled: res.Signalled, Killed: res.Killed,
			TimeoutMs: o.timeout.Milliseconds(), GraceMs: reproduce.DefaultGrace.Milliseconds()},
		Evidence: output.EvidenceSummary{Version: st.Version, Events: st.Events, Hypotheses: st.Hypotheses, Rejected: st.Rejected,
			FirstRejections: []store.Diagnostic{}, Warnings: st.Warnings, RedactedEvents: st.RedactedEvents,
			HeldBack: st.HeldBack, HeldBackEvents: st.HeldBackEvents, HeldBackOmitted: st.HeldBackOmitted, AtCap: []store.LocationCount{},
			MaxPerLocation: st.MaxPerLocation, PendingBytes: st.PendingBytes, IngestURL: st.IngestURL, AppendPath: st.AppendPath}}
	for _, d := range st.Diagnostics {
		if d.Level == "rejected" && len(v.Evidence.FirstRejections) < maxFirstRejections {
			v.Evidence.FirstRejections = append(v.Evidence.FirstRejections, d)
		}
	}
	if !res.Subreaper && res.Note != "" {
		v.Warnings = append(v.Warnings, res.Note)
	}
	if st.IngestURLChanged {
		v.Warnings = append(v.Warnings, fmt.Sprintf("the Ingest URL changed from %s to %s: a helper with the old URL written into it cannot deliver; it reads %s when set, or write the new URL into it", st.PreviousURL, st.IngestURL, sessionenv.IngestURL))
	}

	var lps service.LogpointList
	if err := c.Call(http.MethodGet, "/v1/sessions/"+id+"/logpoints", nil, &lps); err != nil {
		v.Warnings = append(v.Warnings, "the logpoints could not be listed: "+err.Error()+"; run "+output.CommandLine("logpoint", "list", "--session", id))
	}
	v.Logpoints = lps.Logpoints
	if v.Logpoints == nil {
		v.Logpoints = []logpoints.Status{}
	}

	if st.Events > 0 { // a small round is read here, with no logs command
		var page store.Page
		if c.Call(http.MethodPost, "/v1/sessions/"+id+"/logs", service.LogsRequest{Limit: output.FirstEventsShown, Cycle: st.Epoch}, &page) == nil {
			v.FirstEvents = page.Events
		}
	}

	var locs store.Locations
	regionsErr := c.Call(http.MethodGet, "/v1/sessions/"+id+"/locations", nil, &locs)
	if regionsErr == nil {
		v.Evidence.AtCap = atCapUnreported(withoutLogpoints(locs.Locations, lps.Logpoints), st)
	}
	var rep *probes.Report
	if regionsErr == nil {
		rep, regionsErr = probes.Scan(probes.Options{Paths: []string{"."}})
	}
	if regionsErr != nil {
		v.Warnings = append(v.Warnings, "the agent log regions under "+dir+" could not be joined with the events: "+regionsErr.Error())
	} else {
		j := probes.JoinAt(locs.ProjectRoot, rep.Regions, locationCounts(withoutLogpoints(locs.Locations, lps.Logpoints)), probes.DefaultDrift)
		r := &output.ReproduceRegions{NeverFired: []probes.Region{}, Unmatched: len(j.Unmatched), Under: "."}
		for _, x := range j.Regions {
			switch {
			case x.Helper:
				r.Helpers++ // sends nothing itself: neither fired nor silent
				continue
			case x.NeverFired:
				r.NeverFired = append(r.NeverFired, x.Region)
			default:
				r.Fired++
			}
			r.Scanned++
		}
		v.Regions = r
	}

	if o.capture != "" {
		cv, err := takeCapture(c, id, o.capture, "") // the session's project root
		if err != nil {
			v.Warnings = append(v.Warnings, "the cycle could not be captured: "+err.Error()+"; capture it with "+output.CommandLine("capture", "--session", id, "--label", o.capture))
		} else {
			v.Capture = &cv
			v.Warnings = append(v.Warnings, cv.Warnings...)
		}
	}
	if diffFrom != "" {
		var dr capture.DiffResult
		if err := c.Call(http.MethodPost, "/v1/sessions/"+id+"/diff", service.DiffRequest{DiffOptions: o.diffReq}, &dr); err != nil {
			v.Warnings = append(v.Warnings, "the comparison failed: "+err.Error()+"; run "+output.CommandLine("diff", "--session", id, "--from", diffFrom))
		} else {
			v.Diff = &output.DiffView{DiffResult: dr, Warnings: []string{}}
		}
	}

	if st.Events == 0 && st.Rejected == 0 && st.HeldBackEvents == 0 && diffFrom == "" {
		// With --diff an empty cycle is compared, not a mistake: the diff says what went.
		v.Warnings = append(v.Warnings, "no evidence arrived: the probes did not run, the program was not rebuilt, or its helper points elsewhere (helpers read "+
			sessionenv.AppendPath+" and "+sessionenv.IngestURL+" when set; see the regions above and debug-mode status --session "+id+")")
	}
	latest := ""
	if o.capture == "" && diffFrom == "" {
		var list service.CaptureList
		if c.Call(http.MethodGet, "/v1/sessions/"+id+"/captures", nil, &list) == nil {
			for _, x := range list.Captures { // oldest first: the last intact one
				if x.Integrity == capture.IntegrityOK && x.Cycle != st.Epoch {
					latest = x.ID
				}
			}
		}
	}
	v.Next = o.next(id, v, diffFrom, latest)
	return v
}

// atCapUnreported is each location whose events are a whole multiple of
// the cap (one process per multiple) with no held-back record for it: a
// helper that reached its cap and never said how much it held back.
func atCapUnreported(locs []store.LocationCount, st service.StatusInfo) []store.LocationCount {
	if st.MaxPerLocation <= 0 || st.HeldBackOmitted > 0 {
		return []store.LocationCount{}
	}
	reported := map[string]bool{}
	for _, h := range st.HeldBack {
		reported[h.Location] = true
	}
	out := []store.LocationCount{}
	for _, l := range locs {
		if l.Events > 0 && l.Events%st.MaxPerLocation == 0 && !reported[l.Location] {
			out = append(out, l)
		}
	}
	return out
}

// next is the commands that naturally follow, complete.
// latest is the session's newest capture of another cycle, if any: a plain
// reproduce after one is most likely the run after the fix.
func (o *reproduceOptions) next(id string, v output.ReproduceView, diffFrom, latest string) []string {
	var n []string
	if v.Evidence.Events > int64(len(v.FirstEvents)) {
		n = append(n, "Read the events: "+output.CommandLine("logs", "--session", id))
	}
	if v.Evidence.Rejected > 0 {
		n = append(n, "Every rejected record and why: "+output.CommandLine("status", "--session", id))
	}
	for _, s := range []struct {
		name string
		t    service.StreamTail
	}{{"stdout", v.Stdout}, {"stderr", v.Stderr}} {
		if s.t.TotalLines > len(s.t.Lines) {
			n = append(n, "All of "+s.name+": "+output.CommandLine("output", "--session", id, "--stream", s.name))
		}
	}
	rerun := func(flag, value string) string {
		args := []string{"reproduce", "--session", id, flag, value}
		if o.timeout != reproduce.DefaultTimeout {
			args = append(args, "--timeout", o.timeout.String())
		}
		return output.CommandLine(append(append(args, "--"), o.args...)...)
	}
	switch {
	case v.Capture != nil:
		n = append(n, "After the fix, compare: "+rerun("--diff", v.Capture.ID))
	case diffFrom != "":
		n = append(n, "If the comparison shows the fix (the wrong value gone, the rest unchanged), remove the probes with proof: "+output.CommandLine("probes", "--remove", "--yes"),
			"If not, keep the probes, change the fix and compare again: "+rerun("--diff", diffFrom))
	case latest != "":
		n = append(n, "After a fix, compare with the capture taken before it: "+rerun("--diff", latest))
	case v.Evidence.Events > 0:
		n = append(n, "If only these events show the bug, freeze them before changing the code: "+output.CommandLine("capture", "--session", id, "--label", "before-fix"))
	}
	return n
}
