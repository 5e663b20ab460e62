package mcp

import (
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"
)

// Effect says what a tool does to its surroundings (MCP tool annotations).
type Effect int

const (
	ReadOnly    Effect = iota // reads evidence or code, changes nothing
	Additive                  // adds (a session, a note, a capture), deletes nothing
	Destructive               // deletes evidence or edits source files
)

// Tool is one MCP tool: a CLI command and the typed arguments it takes.
type Tool struct {
	Name    string   // the tool's name
	Title   string   // a short human title
	Command []string // the command's words, and any flags the tool always passes
	Effect  Effect
	Note    string   // said before the command's help, when the tool differs from the command
	Omit    []string // flags of the command this tool does not take (another tool does)
	add     func(s *sdk.Server, cfg Config, t *sdk.Tool, cmd *cobra.Command)
	input   any // a zero In, for the checks in the tests
}

// tool declares a tool whose arguments are the fields of In.
func tool[In any](name, title, command string, effect Effect, note string, omit ...string) Tool {
	t := Tool{Name: name, Title: title, Command: strings.Fields(command), Effect: effect, Note: note, Omit: omit, input: new(In)}
	t.add = func(s *sdk.Server, cfg Config, st *sdk.Tool, cmd *cobra.Command) {
		st.InputSchema = inputSchema[In](cmd)
		sdk.AddTool(s, st, handle[In](cfg, t))
	}
	return t
}

// inputSchema is the JSON Schema of In, each argument's description ending
// with the flag's default where it has one.
func inputSchema[In any](cmd *cobra.Command) *jsonschema.Schema {
	schema, err := jsonschema.For[In](nil)
	if err != nil {
		panic(err) // a programming error; the tests build every tool
	}
	for name, p := range schema.Properties {
		// Every argument is optional or required, never null: one type
		// each, which every client's schema dialect can express.
		if i := slices.Index(p.Types, "null"); i >= 0 && len(p.Types) == 2 {
			p.Type, p.Types = p.Types[1-i], nil
		}
		f := cmd.Flags().Lookup(name)
		if f == nil || strings.Contains(p.Description, "default") {
			continue
		}
		switch f.DefValue {
		case "", "0", "false", "[]":
		default:
			p.Description += " (default " + f.DefValue + ")"
		}
	}
	return schema
}

// Tools is every tool, one line each (the tests check each against its
// command's flags, and that every command is a tool or said not to be). A
// tool whose command this build lacks is left out. stop is not a tool: the
// server's next call would start the background work again at once.
var Tools []Tool

func init() { Tools = tools() } // not a plain initializer: a handler reads Tools

func tools() []Tool {
	return []Tool{
		tool[CreateInput]("create", "Create a session", "create", Additive, "Returns the session id every other tool takes, the Ingest URL and the Append Path; with language and ingest also the probe template for that language, filled in for the session.", "quiet"),
		tool[TemplateInput]("template", "Probe template for a language", "template", ReadOnly, ""),
		tool[ResetInput]("reset", "Reset a session's evidence", "reset", Destructive, ""),
		tool[LogsInput]("logs", "Read events", "logs", ReadOnly, ""),
		tool[QueryInput]("query", "Query events with jq", "query", ReadOnly, "To continue a page, give only session and cursor."),
		tool[StatusInput]("status", "Session status", "status", ReadOnly, ""),
		tool[SessionsInput]("sessions", "List sessions", "sessions", ReadOnly, ""),
		tool[SessionInput]("clean", "Delete a session", "clean", Destructive, ""),
		tool[ProbesInput]("probes", "List or check probe regions", "probes", ReadOnly, "To remove regions use the probes_remove tool.", "remove", "yes"),
		tool[ProbesRemoveInput]("probes_remove", "Remove probe regions", "probes --remove", Destructive, removeNote, "check", "staged", "session", "drift"),
		tool[EvidenceAddInput]("evidence_add", "Record user evidence", "evidence add", Additive, ""),
		tool[SessionInput]("evidence_list", "List user evidence", "evidence list", ReadOnly, ""),
		tool[CaptureInput]("capture", "Capture the evidence", "capture", Additive, ""),
		tool[CapturesInput]("captures", "List captures", "captures", ReadOnly, ""),
		tool[FollowInput]("follow", "Follow a link", "follow", ReadOnly, ""),
		tool[DiffInput]("diff", "Compare evidence", "diff", ReadOnly, ""),
		tool[ReproduceInput]("reproduce", "Run the reproduction", "reproduce", Destructive, "Runs command (a program and its arguments, no shell) in the folder the server was started in."),
		tool[OutputInput]("output", "Page the reproduction's output", "output", ReadOnly, ""),
		tool[LogpointAddInput]("logpoint_add", "Add a logpoint (no edit to the program)", "logpoint add", Additive, "The path is resolved from the folder the server was started in."),
		tool[SessionInput]("logpoint_list", "List logpoints and their states", "logpoint list", ReadOnly, ""),
		tool[LogpointRemoveInput]("logpoint_remove", "Remove logpoints", "logpoint remove", Destructive, ""),
		tool[SessionInput]("env", "The session's environment for a program started elsewhere", "env", ReadOnly, "The result's variables are what a program started outside the reproduce tool needs (the text is shell exports)."),
	}
}

// removeNote replaces the help of probes, which the probes tool shows.
const removeNote = `Remove every well-formed "agent log" region under paths (default: the folder the server was started in): each region's lines, markers included, and nothing else; a file with a broken marker is never touched. Without yes it only shows what it would remove. With yes it deletes a file left with nothing but its helper's own lines, lists what still differs from git HEAD outside the regions, and ends with the same check as the probes tool with check (a failure when anything remains).`

// The arguments of each tool. An argument is named like the flag it
// becomes; `cli:"arg"` marks the command's positional arguments.

type CreateInput struct {
	Language       string `json:"language,omitempty" jsonschema:"also return the probe template for this language, this session's values filled in (as the template tool with session)"`
	Ingest         string `json:"ingest,omitempty" jsonschema:"the template's transport, with language: file (every language) or http (browser code)"`
	Root           string `json:"root,omitempty" jsonschema:"the project root event locations are stored relative to (default: the git top-level of the server's folder, else that folder)"`
	MaxPerLocation int64  `json:"max-per-location,omitempty" jsonschema:"events a helper sends per location per process before it holds the rest back"`
	For            string `json:"for,omitempty" jsonschema:"with language go or java: save the helper beside this source file (or in this folder), in its package, e.g. cache/lru.go"`
}

type ResetInput struct {
	Session        string `json:"session" jsonschema:"session id (a UUID) from the create tool"`
	MaxPerLocation int64  `json:"max-per-location,omitempty" jsonschema:"set the session's cap of events per location per process (default: keep it)"`
}

type ReproduceInput struct {
	Session        string   `json:"session" jsonschema:"session id (a UUID) from the create tool"`
	Command        []string `json:"command" cli:"arg" jsonschema:"the program and its arguments, e.g. [\"python3\", \"report.py\"]; no shell unless you give one: [\"sh\", \"-c\", \"make && ./app\"]"`
	Keep           bool     `json:"keep,omitempty" jsonschema:"append to the current cycle instead of starting a new one"`
	Capture        string   `json:"capture,omitempty" jsonschema:"capture this cycle afterwards, with this label (e.g. before-fix)"`
	Diff           string   `json:"diff,omitempty" jsonschema:"compare this cycle afterwards with this capture (the one taken before the fix)"`
	Mode           string   `json:"mode,omitempty" jsonschema:"with diff: auto (default), align or distribution"`
	Fields         []string `json:"fields,omitempty" jsonschema:"with diff: compare only these data paths (.stale, .items[].id)"`
	Ignore         []string `json:"ignore,omitempty" jsonschema:"with diff: leave these data paths out of alignment and comparison (.id, .ts)"`
	Timeout        string   `json:"timeout,omitempty" jsonschema:"end the command's whole process tree after this long, e.g. 30s or 10m"`
	MaxPerLocation int64    `json:"max-per-location,omitempty" jsonschema:"set the session's cap of events per location per process"`
}

type LogpointAddInput struct {
	Session    string `json:"session" jsonschema:"session id (a UUID) from the create tool"`
	At         string `json:"at" jsonschema:"the line, as PATH:LINE, e.g. src/report.py:44"`
	Hypothesis string `json:"hypothesis" jsonschema:"the hypothesis label its events carry, e.g. H1"`
	Message    string `json:"message" jsonschema:"a short constant description of the observation"`
	Data       string `json:"data,omitempty" jsonschema:"an expression in the program's language, evaluated where the line runs, e.g. {\"total\": total, \"n\": len(items)} (Python) or ({total, n: items.length}) (JavaScript) (default: no data, null)"`
}

type LogpointRemoveInput struct {
	Session string   `json:"session" jsonschema:"session id (a UUID) from the create tool"`
	IDs     []string `json:"ids,omitempty" cli:"arg" jsonschema:"the logpoints to remove, e.g. [\"lp-1\"]"`
	All     bool     `json:"all,omitempty" jsonschema:"remove every logpoint of the session"`
}

type OutputInput struct {
	Session      string `json:"session" jsonschema:"session id (a UUID) from the create tool"`
	Stream       string `json:"stream,omitempty" jsonschema:"stdout or stderr"`
	Offset       int    `json:"offset,omitempty" jsonschema:"skip this many lines"`
	Limit        int    `json:"limit,omitempty" jsonschema:"show at most this many lines, 1 to 1000"`
	Reproduction int64  `json:"reproduction,omitempty" jsonschema:"fail unless the output is still this reproduction's (next pages set it)"`
}

type SessionInput struct {
	Session string `json:"session" jsonschema:"session id (a UUID) from the create tool"`
}

type StatusInput struct {
	Session string `json:"session" jsonschema:"session id (a UUID) from the create tool"`
	All     bool   `json:"all,omitempty" jsonschema:"list every kept diagnostic on its own instead of one row per reason"`
}

type TemplateInput struct {
	Language string  `json:"language" jsonschema:"the program's language, e.g. python, go, typescript (the tool's description lists them all)"`
	Ingest   string  `json:"ingest" jsonschema:"transport: file (every language, Node included) or http (browser code, or a program that cannot reach this machine's files)"`
	Section  string  `json:"section,omitempty" jsonschema:"all, helper, import or call: return only that source, ready to write into a file (helper is the import where the helper lives outside the project)"`
	Session  string  `json:"session,omitempty" jsonschema:"fill in this session's Ingest URL or Append Path"`
	Package  *string `json:"package,omitempty" jsonschema:"Go and Java: the helper's package (Java: empty for the default package); default: the package of dir"`
	Dir      string  `json:"dir,omitempty" jsonschema:"Go and Java: the folder the helper is saved in, whose package it takes (default: the server's working directory)"`
	For      string  `json:"for,omitempty" jsonschema:"Go, Java, browser modules: save the helper beside this source file (or in this folder), in its package, instead of returning it to paste"`
}

// Filters are the event filters logs and query share.
type Filters struct {
	Hypothesis []string `json:"hypothesis,omitempty" jsonschema:"only events with one of these hypothesis labels, e.g. [\"H1\", \"H2\"]"`
	Location   string   `json:"location,omitempty" jsonschema:"only events whose location contains this text, e.g. cart.py or cart.py:42"`
	Message    string   `json:"message,omitempty" jsonschema:"only events whose message contains this text (case-insensitive)"`
	SeqFrom    int64    `json:"seq-from,omitempty" jsonschema:"only events with sequence (SEQ) at least this"`
	SeqTo      int64    `json:"seq-to,omitempty" jsonschema:"only events with sequence (SEQ) at most this"`
	Since      string   `json:"since,omitempty" jsonschema:"only events at or after this time: 2026-11-30 08:01:02.123 (UTC, as logs shows it), RFC 3339, or epoch milliseconds"`
	Until      string   `json:"until,omitempty" jsonschema:"only events at or before this time (same forms as since)"`
}

type LogsInput struct {
	Session string `json:"session" jsonschema:"session id (a UUID) from the create tool"`
	Filters
	Offset  int    `json:"offset,omitempty" jsonschema:"skip this many matching events"`
	Limit   int    `json:"limit,omitempty" jsonschema:"show at most this many events, 1 to 1000"`
	Cycle   int64  `json:"cycle,omitempty" jsonschema:"fail unless the evidence is still in this reset cycle (next pages set it)"`
	Capture string `json:"capture,omitempty" jsonschema:"read this capture's frozen evidence instead of the live cycle (an id from the capture tool)"`
}

type QueryInput struct {
	Session string `json:"session" jsonschema:"session id (a UUID) from the create tool"`
	Program string `json:"program,omitempty" cli:"arg" jsonschema:"the jq program, run once per event (or once over all of them with slurp, or once reading them with inputs with null-input), e.g. select(.data.total < 0) | {seq: .sequence, total: .data.total}"`
	Filters
	Slurp     bool              `json:"slurp,omitempty" jsonschema:"run the program once over the array of all matching events (at most 150,000 when it only reads fields by name, else 15,000)"`
	NullInput bool              `json:"null-input,omitempty" jsonschema:"run the program once on null; input and inputs read the matching events one at a time, so reduce inputs as $e (...) aggregates any number of them, e.g. reduce inputs as $e ({}; .[$e.data.month] += 1)"`
	Arg       map[string]string `json:"arg,omitempty" jsonschema:"bind $NAME to a string: {\"NAME\": \"value\"}"`
	ArgJSON   map[string]any    `json:"argjson,omitempty" jsonschema:"bind $NAME to a JSON value: {\"NAME\": [1, 2]}"`
	Limit     int               `json:"limit,omitempty" jsonschema:"values per page, 1 to 1000"`
	Cursor    string            `json:"cursor,omitempty" jsonschema:"continue a query from its next page: give only session and cursor"`
	Capture   string            `json:"capture,omitempty" jsonschema:"run over this capture's frozen evidence instead of the live cycle (an id from the capture tool)"`
	CountBy   string            `json:"count-by,omitempty" jsonschema:"instead of a program: count the events per value of this path, most first, as {count, value} rows, e.g. .data.stale or [.location, .data.key]"`
}

type SessionsInput struct {
	All bool `json:"all,omitempty" jsonschema:"list every session, not only today's"`
}

type ProbesInput struct {
	Paths   []string `json:"paths,omitempty" cli:"arg" jsonschema:"files or folders to scan (default: the folder the server was started in)"`
	Check   bool     `json:"check,omitempty" jsonschema:"fail (exit code 5) while any region or broken marker remains"`
	Staged  bool     `json:"staged,omitempty" jsonschema:"scan the content staged in git, not the working tree"`
	Session string   `json:"session,omitempty" jsonschema:"join each region with this session's events"`
	Drift   *int     `json:"drift,omitempty" jsonschema:"with session: how many lines outside a region an event's line may be and still count for the nearest region"`
}

type ProbesRemoveInput struct {
	Paths []string `json:"paths,omitempty" cli:"arg" jsonschema:"files or folders to clean (default: the folder the server was started in)"`
	Yes   bool     `json:"yes,omitempty" jsonschema:"write the files; without it the tool only shows what it would remove"`
}

type EvidenceAddInput struct {
	Session string `json:"session" jsonschema:"session id (a UUID) from the create tool"`
	Note    string `json:"note,omitempty" jsonschema:"the user's words (at most 4,000 characters); with file, what the file shows"`
	File    string `json:"file,omitempty" jsonschema:"a file the user points to, recorded by reference (never copied or read)"`
}

type CaptureInput struct {
	Session    string `json:"session" jsonschema:"session id (a UUID) from the create tool"`
	Label      string `json:"label,omitempty" jsonschema:"a short note for people, e.g. before fix"`
	SourceRoot string `json:"source-root,omitempty" jsonschema:"the folder whose files event locations point into (default: the folder the server was started in)"`
}

type CapturesInput struct {
	Session string `json:"session" jsonschema:"session id (a UUID) from the create tool"`
	Capture string `json:"capture,omitempty" jsonschema:"show this capture in full"`
}

type FollowInput struct {
	Session string `json:"session" jsonschema:"session id (a UUID) from the create tool"`
	Capture string `json:"capture" jsonschema:"capture id, from the capture or captures tool"`
	Seq     int64  `json:"seq" jsonschema:"the event's sequence (SEQ)"`
	Rel     string `json:"rel" jsonschema:"the relation to follow (the tool's description lists them)"`
}

type DiffInput struct {
	Session string   `json:"session" jsonschema:"session id (a UUID) from the create tool"`
	From    string   `json:"from" jsonschema:"the capture taken before the fix"`
	To      string   `json:"to,omitempty" jsonschema:"the capture to compare with (default: the live cycle)"`
	Mode    string   `json:"mode,omitempty" jsonschema:"auto (default), align (events one by one) or distribution (how often each value occurs, for runs that are not deterministic)"`
	Fields  []string `json:"fields,omitempty" jsonschema:"compare only these data paths (.stale, .items[].id)"`
	Ignore  []string `json:"ignore,omitempty" jsonschema:"leave these data paths out of alignment and comparison (.id, .ts)"`
}
