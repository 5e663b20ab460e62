package cli

import (
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentic-debug-mode/debug-mode/internal/capture"
	"github.com/agentic-debug-mode/debug-mode/internal/output"
	"github.com/agentic-debug-mode/debug-mode/internal/service"
)

type followOptions struct {
	*env
	session string
	capture string
	seq     int64
	rel     string
}

func newFollowCmd(e *env) *cobra.Command {
	o := &followOptions{env: e}
	cmd := &cobra.Command{
		Use:   "follow --session <id> --capture <id> --seq <n> --rel <relation>",
		Short: "Follow one typed link of an event in a capture (its source, region, neighbours)",
		Long: `Follow one typed link of an event read from a capture, and print the link
beside the page it leads to.

Relations:
  source                the frozen source lines around the event's location
  region                the agent log region the event came from (a line up to
                        10 lines outside every region counts for the one nearest
                        region, and the link says how far it drifted)
  previous_at_location  the event before it, in logs order, at the same location
  next_at_location      the event after it, in logs order, at the same location

Every link has a state:
  complete     proven; the target is exact
  ambiguous    more than one target (a path that matches several files, a line
               that fits several regions); following it returns all of them
  incomplete   the capture cannot answer (no line number, a bound was reached,
               the file could not be read); the reason says which
  unavailable  a complete search found no target (no such file, the first or
               last event at its location)

previous_at_location and next_at_location are always complete or unavailable:
a capture holds every event of its cycle.

An incomplete or unavailable link is refused with its reason and exit code 6:
nothing is guessed. logs --capture --json shows every event's links.`,
		Example: `  debug-mode follow --session 707225a6-8e0f-4db4-b64b-e261bd6a861a --capture c-3f2a9b1c0d4e --seq 12 --rel source
  debug-mode follow --session 707225a6-8e0f-4db4-b64b-e261bd6a861a --capture c-3f2a9b1c0d4e --seq 12 --rel previous_at_location`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error { return o.run() },
	}
	cmd.Flags().StringVar(&o.session, "session", "", "session id (from debug-mode create)")
	cmd.Flags().StringVar(&o.capture, "capture", "", "capture id (from debug-mode capture or captures)")
	cmd.Flags().Int64Var(&o.seq, "seq", 0, "the event's sequence (SEQ in logs --capture)")
	cmd.Flags().StringVar(&o.rel, "rel", "", "relation: "+strings.Join(capture.Relations, ", "))
	return cmd
}

func (o *followOptions) run() error {
	id, err := sessionID(o.session)
	if err != nil {
		return err
	}
	cid, err := captureID("--capture", o.capture)
	if err != nil {
		return err
	}
	if o.seq < 1 {
		return usagef("--seq is required: the SEQ of an event in debug-mode logs --session %s --capture %s", id, cid)
	}
	known := false
	for _, r := range capture.Relations {
		known = known || r == o.rel
	}
	if !known {
		return usagef("--rel must be one of %s", strings.Join(capture.Relations, ", "))
	}
	c, err := o.connect()
	if err != nil {
		return err
	}
	var out capture.Followed
	req := service.FollowRequest{Capture: cid, Seq: o.seq, Rel: o.rel}
	if err := c.Call(http.MethodPost, "/v1/sessions/"+id+"/follow", req, &out); err != nil {
		return err
	}
	v := output.FollowView{Followed: out}
	if out.Page.Kind == "event" && len(out.Link.Targets) == 1 {
		v.Next = output.CommandLine("follow", "--session", id, "--capture", out.Capture, "--seq", strconv.FormatInt(out.Link.Targets[0].Seq, 10), "--rel", o.rel)
	}
	return o.printer().Result("follow", v, func(w io.Writer) { output.Follow(w, v) })
}
