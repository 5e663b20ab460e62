package cli

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/agentic-debug-mode/debug-mode/internal/output"
	"github.com/agentic-debug-mode/debug-mode/internal/service"
	"github.com/agentic-debug-mode/debug-mode/internal/store"
)

const evidenceLong = `Keep what only the user could see: their report of the bug in their own words
(a note), and files they point to (a screenshot, a browser HAR, a crash dump).

Ask for these last. First read the code and run things yourself, then add
probes and reproduce yourself; ask the user for a report only when the
decisive fact is something only they see, and for a file only when a report
cannot carry it.

Notes are at most 4,000 characters and have secret-looking values redacted
before storage. Files are referenced in place, never copied, changed or read:
only their path, size and modification time are kept, and every listing
checks afresh that each file is still there and unchanged. Entries keep
short ids (N1, F1), record the reset cycle they were added in, survive reset,
and are deleted by clean.`

type evidenceListOptions struct {
	*env
	session string
}

func newEvidenceCmd(e *env) *cobra.Command {
	o := &evidenceListOptions{env: e}
	cmd := &cobra.Command{
		Use:   "evidence --session <id>",
		Short: "Record and list what the user reported: notes and files referenced in place",
		Long:  evidenceLong,
		Example: `  debug-mode evidence --session 707225a6-8e0f-4db4-b64b-e261bd6a861a
  debug-mode evidence add --session 707225a6-8e0f-4db4-b64b-e261bd6a861a --note "Total shows -3.50 after SAVE10"
  debug-mode evidence add --session 707225a6-8e0f-4db4-b64b-e261bd6a861a --file ~/Desktop/cart.png --note "the cart page"`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error { return o.run() },
	}
	cmd.Flags().StringVar(&o.session, "session", "", "session id (from debug-mode create)")
	list := &evidenceListOptions{env: e}
	listCmd := &cobra.Command{
		Use:     "list --session <id>",
		Short:   "List the notes and files, checking each file afresh",
		Long:    "List the session's notes and files. Each file is looked at again now: available, missing,\nunreadable, changed since added (size or modification time), or replaced by a\nlink, a folder or a special file.",
		Example: "  debug-mode evidence list --session 707225a6-8e0f-4db4-b64b-e261bd6a861a",
		Args:    cobra.NoArgs,
		RunE:    func(*cobra.Command, []string) error { return list.run() },
	}
	listCmd.Flags().StringVar(&list.session, "session", "", "session id (from debug-mode create)")
	cmd.AddCommand(newEvidenceAddCmd(e), listCmd)
	return cmd
}

func (o *evidenceListOptions) run() error {
	var ue store.UserEvidence
	_, err := o.callSession(o.session, http.MethodGet, "/user-evidence", nil, &ue)
	if err != nil {
		return err
	}
	view := output.EvidenceView{SessionID: ue.SessionID, Cycle: ue.Cycle, Notes: ue.Notes, Files: make([]output.EvidenceFile, len(ue.Files))}
	if view.Notes == nil {
		view.Notes = []store.UserNote{}
	}
	for i, f := range ue.Files {
		view.Files[i] = output.EvidenceFile{UserFile: f, Availability: store.CheckUserFile(f.FileRef)}
	}
	return o.printer().Result("evidence", view, func(w io.Writer) { output.Evidence(w, view) })
}

type evidenceAddOptions struct {
	*env
	session string
	note    string
	file    string
}

func newEvidenceAddCmd(e *env) *cobra.Command {
	o := &evidenceAddOptions{env: e}
	cmd := &cobra.Command{
		Use:   "add --session <id> (--note <text> | --file <path> [--note <text>])",
		Short: "Record the user's report (--note) or a file they point to (--file)",
		Long: `Record the user's report as a note (at most 4,000 characters), or a file they
point to by reference: it must exist and be a regular file this user can
read. It is never copied, changed or read; its path (links resolved), size
and modification time are kept. With --file, --note describes the file.
Adding a path that is already recorded updates its entry instead of adding
another.`,
		Example: `  debug-mode evidence add --session 707225a6-8e0f-4db4-b64b-e261bd6a861a --note "Total shows -3.50 after SAVE10"
  debug-mode evidence add --session 707225a6-8e0f-4db4-b64b-e261bd6a861a --file ./trace.har --note "checkout request"`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return o.run(cmd.Flags().Changed("note"), cmd.Flags().Changed("file"))
		},
	}
	cmd.Flags().StringVar(&o.session, "session", "", "session id (from debug-mode create)")
	cmd.Flags().StringVar(&o.note, "note", "", "the user's words (at most 4,000 characters); with --file, what the file shows")
	cmd.Flags().StringVar(&o.file, "file", "", "a file the user points to, recorded by reference")
	return cmd
}

func (o *evidenceAddOptions) run(haveNote, haveFile bool) error {
	id, err := sessionID(o.session)
	if err != nil {
		return err
	}
	if !haveNote && !haveFile {
		return usagef(`give --note "<the user's words>" or --file <path> (or both)`)
	}
	if haveNote {
		if n := utf8.RuneCountInString(o.note); n > store.MaxNoteChars {
			return usagef("--note is %d characters; the bound is 4,000 (keep the user's words that bear on the bug, or record the full text as a file with --file)", n)
		}
		if err := store.CheckNote(o.note); err != nil {
			return usagef("--note: %s", userReason(err))
		}
	}
	var ref store.FileRef
	if haveFile {
		if strings.TrimSpace(o.file) == "" {
			return usagef("--file needs a path")
		}
		if ref, err = store.StatUserFile(o.file); err != nil {
			return usagef("--file %s", userReason(err))
		}
	}
	c, err := o.connect()
	if err != nil {
		return err
	}
	var added service.AddedUserEvidence
	if haveFile {
		err = c.Call(http.MethodPost, "/v1/sessions/"+id+"/user-evidence/files", service.AddFileRequest{FileRef: ref, Note: o.note}, &added)
	} else {
		err = c.Call(http.MethodPost, "/v1/sessions/"+id+"/user-evidence/notes", service.AddNoteRequest{Text: o.note}, &added)
	}
	if err != nil {
		return err
	}
	return o.printer().Result("evidence add", added, func(w io.Writer) { output.EvidenceAdded(w, added) })
}

// userReason is a refusal without the store's prefix.
func userReason(err error) string {
	if errors.Is(err, store.ErrUserEvidence) {
		return strings.TrimPrefix(err.Error(), store.ErrUserEvidence.Error()+": ")
	}
	return err.Error()
}
