package cli

import (
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentic-debug-mode/debug-mode/internal/logpoints"
	"github.com/agentic-debug-mode/debug-mode/internal/output"
	"github.com/agentic-debug-mode/debug-mode/internal/probes"
	"github.com/agentic-debug-mode/debug-mode/internal/service"
	"github.com/agentic-debug-mode/debug-mode/internal/store"
	"github.com/agentic-debug-mode/debug-mode/internal/templates"
)

// exitError is a result that is not a success but was still printed, such
// as a failed --check: its own exit code and code word.
type exitError struct {
	code int
	kind string
	msg  string
}

func (e *exitError) Error() string { return e.msg }

type probesOptions struct {
	*env
	paths   []string
	check   bool
	staged  bool
	session string
	drift   int
	remove  bool
	yes     bool
}

func newProbesCmd(e *env) *cobra.Command {
	o := &probesOptions{env: e}
	cmd := &cobra.Command{
		Use:   "probes [PATH...]",
		Short: "List every agent log region in the code; check, join with evidence, or remove them",
		Long: `List every "agent log" region in the files under PATH (default: the
current folder): file, first and last line, and its first line of code. Every
template language's comment form counts (// #region agent log, //region agent
log, # region agent log, # #region agent log, #region agent log, #pragma region
agent log, /* #region agent log */, <!-- #region agent log -->, in any case,
each closed by its #endregion or endregion). Broken markers (a start with no
end, an end with no start, a region inside another, a comment that mentions
"region agent log" but is no marker) are reported with their line.

Read in a git work tree: every file git tracks and every untracked file git
does not ignore, whatever its folder (build/, vendor/, node_modules/ …) or
extension (.html, .sh, Makefile, .yaml …). Outside git: every file, except in
.git, dependency and build folders (node_modules, vendor, target, build,
dist, bin, obj, .venv, __pycache__, …) and what .gitignore files ignore.
Skipped either way: links, binary files (a NUL byte in the first 8,000),
files over 2 MiB, and prose documents (.md, .rst, .adoc), whose regions are
examples. A file or folder named on the command line is always read.

--check exits with code 5 while any region or broken marker remains (for CI
and git pre-commit hooks); --staged looks at what is staged in git instead of
the working tree.

--session joins each region with that session's evidence: how many events
point into it (by the event's location, path:line, compared relative to the
session's project root, so it works from any subfolder) and with which
hypothesis labels. A hand-written location a few lines outside every region
is attributed to the nearest one (lines move when code is added above a
probe); helpers that fill in their own location never drift. A region that
never fired means the code did not run, the build is stale, or delivery
failed: that is not evidence against a hypothesis. Locations that fall in no
region are listed too.

--remove shows what it would remove; with --yes it removes each well-formed
region exactly (its lines, markers included), leaves every other byte of the
file as it was, and never touches a file with a broken marker. A file left
with nothing but white space, or only what its language's helper file holds
besides its region (a Go or Java package clause), held only probes: it is
deleted, unless git HEAD holds it with other content. In a git work tree,
each file it rewrote is then compared with HEAD, and every change left
outside the regions (a stray blank line, a leftover import, the fix) is
listed by path:line. It ends with the same check as --check, and exits with
code 5 when a region or broken marker remains.`,
		Example: `  debug-mode probes
  debug-mode probes src/ --session 707225a6-8e0f-4db4-b64b-e261bd6a861a
  debug-mode probes --remove
  debug-mode probes --remove --yes
  debug-mode probes --check --staged`,
		Args: cobra.ArbitraryArgs,
		RunE: func(_ *cobra.Command, args []string) error { o.paths = args; return o.run() },
	}
	fl := cmd.Flags()
	fl.BoolVar(&o.check, "check", false, "exit with code 5 while any region or broken marker remains")
	fl.BoolVar(&o.staged, "staged", false, "scan the content staged in git (the index), not the working tree")
	fl.StringVar(&o.session, "session", "", "join each region with this session's events")
	fl.IntVar(&o.drift, "drift", probes.DefaultDrift, "with --session: how many lines outside a region an event's line may be and still count for the nearest region")
	fl.BoolVar(&o.remove, "remove", false, "show the regions that would be removed (add --yes to remove them)")
	fl.BoolVar(&o.yes, "yes", false, "with --remove: write the files")
	return cmd
}

func (o *probesOptions) run() error {
	switch {
	case o.yes && !o.remove:
		return usagef("--yes only confirms --remove")
	case o.remove && o.staged:
		return usagef("--remove works on the working tree; drop --staged")
	case o.remove && o.session != "":
		return usagef("--remove and --session do not combine; join first, then remove")
	case o.drift < 0 || o.drift > 1000:
		return usagef("--drift must be between 0 and 1000 lines")
	}
	var id string
	if o.session != "" {
		var err error
		if id, err = sessionID(o.session); err != nil {
			return err
		}
	}
	opts := probes.Options{Paths: o.paths, Staged: o.staged}
	rep, err := probes.Scan(opts)
	if err != nil {
		var pe *probes.PathError
		if errors.As(err, &pe) {
			return usagef("%s", pe.Error())
		}
		return err
	}
	view := output.ProbesView{Report: rep}
	if id != "" {
		c, err := o.connect()
		if err != nil {
			return err
		}
		var locs store.Locations
		if err := c.Call(http.MethodGet, "/v1/sessions/"+id+"/locations", nil, &locs); err != nil {
			return err
		}
		var lps service.LogpointList
		if err := c.Call(http.MethodGet, "/v1/sessions/"+id+"/logpoints", nil, &lps); err != nil {
			return err
		}
		view.Session = &output.ProbesSession{SessionID: locs.SessionID, Cycle: locs.Cycle, Version: locs.Version, Events: locs.Events,
			OmittedLocations: locs.Omitted, Joined: probes.JoinAt(locs.ProjectRoot, rep.Regions, locationCounts(withoutLogpoints(locs.Locations, lps.Logpoints)), o.drift),
			Logpoints: lps.Logpoints}
		if view.Session.Logpoints == nil {
			view.Session.Logpoints = []logpoints.Status{}
		}
	}
	remaining := rep
	if o.remove {
		if view.Removal, err = probes.Remove(rep, probes.RemoveOptions{Apply: o.yes, Residue: templates.HelperResidue, Git: true}); err != nil {
			return err
		}
		if o.yes && view.Removal.Regions > 0 {
			if remaining, err = probes.Scan(opts); err != nil {
				return err
			}
		}
	}
	// --remove --yes ends with the proof --check gives, exit code included.
	proof := o.check || o.remove && o.yes
	if proof {
		view.Check = &output.ProbesLeft{Passed: remaining.Clean(), RemainingRegions: len(remaining.Regions), RemainingBroken: len(remaining.Broken),
			FilesScanned: remaining.FilesScanned}
	}
	view.Next = o.next(rep, view)
	if err := o.printer().Result("probes", view, func(w io.Writer) { output.Probes(w, view) }); err != nil {
		return err
	}
	if proof && !view.Check.Passed {
		var parts []string
		if len(remaining.Regions) > 0 {
			parts = append(parts, countNoun(int64(len(remaining.Regions)), "agent log region", "agent log regions"))
		}
		if len(remaining.Broken) > 0 {
			parts = append(parts, countNoun(int64(len(remaining.Broken)), "broken marker", "broken markers"))
		}
		verb := " remain"
		if len(remaining.Regions)+len(remaining.Broken) == 1 {
			verb = " remains"
		}
		msg := "check failed: " + strings.Join(parts, " and ") + verb
		if len(remaining.Regions) > 0 {
			msg += "; remove regions with " + output.CommandLine(append([]string{"probes", "--remove", "--yes"}, o.paths...)...)
		}
		if len(remaining.Broken) > 0 {
			msg += "; fix broken markers by hand"
		}
		return &exitError{code: ExitCheckFailed, kind: "check_failed", msg: msg}
	}
	return nil
}

// next is the command that naturally follows, if any.
func (o *probesOptions) next(rep *probes.Report, v output.ProbesView) string {
	switch {
	case o.remove && !o.yes && v.Removal.Regions > 0:
		return "Write it: " + output.CommandLine(append([]string{"probes", "--remove", "--yes"}, o.paths...)...)
	case !o.remove && !o.staged && len(rep.Regions) > 0 && !o.check:
		return "Remove them: " + output.CommandLine(append([]string{"probes", "--remove"}, o.paths...)...) + " (shows what it would remove; add --yes to write)"
	}
	return ""
}

// withoutLogpoints leaves out the events of logpoints (their location and
// label), which belong to no region.
func withoutLogpoints(in []store.LocationCount, lps []logpoints.Status) []store.LocationCount {
	if len(lps) == 0 {
		return in
	}
	mine := map[logpoints.HitKey]bool{}
	for _, lp := range lps {
		mine[logpoints.HitKey{Location: lp.Location, HypothesisID: lp.HypothesisID}] = true
	}
	out := make([]store.LocationCount, 0, len(in))
	for _, l := range in {
		l.Hypotheses = slices.DeleteFunc(slices.Clone(l.Hypotheses), func(h store.HypothesisCount) bool {
			if mine[logpoints.HitKey{Location: l.Location, HypothesisID: h.ID}] {
				l.Events -= h.Events
				return true
			}
			return false
		})
		if len(l.Hypotheses) > 0 {
			out = append(out, l)
		}
	}
	return out
}

func locationCounts(in []store.LocationCount) []probes.LocationCount {
	out := make([]probes.LocationCount, len(in))
	for i, l := range in {
		hs := make([]probes.LabelCount, len(l.Hypotheses))
		for j, h := range l.Hypotheses {
			hs[j] = probes.LabelCount{ID: h.ID, Events: h.Events}
		}
		out[i] = probes.LocationCount{Location: l.Location, Events: l.Events, Hypotheses: hs}
	}
	return out
}
