// Package output renders command results: low-token pretty text for agents
// by default, or one stable JSON envelope per command with --json. Commands
// never print directly.
package output

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
	"time"
)

// SchemaVersion versions every JSON envelope.
const SchemaVersion = 1

// Printer writes results and errors.
type Printer struct {
	Out, Err io.Writer
	JSON     bool
	// Capture, when set, also receives the JSON envelopes, whatever the
	// output mode (the MCP server returns the text and the envelope).
	Capture *Envelopes
}

// Envelopes holds the envelopes a Printer wrote or would have written.
type Envelopes struct {
	Result json.RawMessage // the result envelope, if a result was printed
	Error  json.RawMessage // the error envelope, if the command failed
}

// compact is v as one line of JSON, without HTML escaping.
func compact(v any) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// Envelope is the JSON form of every successful result.
type Envelope struct {
	SchemaVersion int    `json:"schemaVersion"`
	Command       string `json:"command"`
	Result        any    `json:"result"`
}

// ErrorEnvelope is the JSON form of a failure, written to stderr.
type ErrorEnvelope struct {
	SchemaVersion int    `json:"schemaVersion"`
	Command       string `json:"command"`
	Error         struct {
		Message  string `json:"message"`
		Code     string `json:"code"`
		ExitCode int    `json:"exitCode"`
	} `json:"error"`
}

// Result writes v as the command's result: pretty via render, or JSON.
func (p *Printer) Result(command string, v any, render func(w io.Writer)) error {
	if p.Capture != nil {
		p.Capture.Result = compact(Envelope{SchemaVersion: SchemaVersion, Command: command, Result: v})
	}
	if p.JSON {
		enc := json.NewEncoder(p.Out)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		return enc.Encode(Envelope{SchemaVersion: SchemaVersion, Command: command, Result: v})
	}
	render(p.Out)
	return nil
}

// Error reports a failure on stderr: one line with the cause and the fix,
// or a JSON envelope with --json.
func (p *Printer) Error(command, code, msg string, exit int) {
	var e ErrorEnvelope
	e.SchemaVersion, e.Command = SchemaVersion, command
	e.Error.Message, e.Error.Code, e.Error.ExitCode = msg, code, exit
	if p.Capture != nil {
		p.Capture.Error = compact(e)
	}
	if p.JSON {
		enc := json.NewEncoder(p.Err)
		enc.SetEscapeHTML(false)
		enc.Encode(e)
		return
	}
	fmt.Fprintln(p.Err, "debug-mode: "+msg)
}

// table returns an aligned writer; flush it when done.
func table(w io.Writer) *tabwriter.Writer { return tabwriter.NewWriter(w, 0, 0, 2, ' ', 0) }

// UTCMillis renders epoch milliseconds as a UTC date and clock.
func UTCMillis(ms int64) string {
	return time.UnixMilli(ms).UTC().Format("2006-01-02 15:04:05.000")
}

// LocalSeconds renders epoch milliseconds in local time, to the second.
func LocalSeconds(ms int64) string {
	return time.UnixMilli(ms).Local().Format("2006-01-02 15:04:05")
}

func plural(n int64, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}
