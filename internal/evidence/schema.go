package evidence

// SchemaField describes one field of the probe event, for templates, help
// and the Agent Skill; the validator enforces the same list.
type SchemaField struct {
	Name    string `json:"name"`
	Type    string `json:"type"`
	Meaning string `json:"meaning"`
}

// ProbeSchema is the event a probe sends, in wire order.
var ProbeSchema = []SchemaField{
	{"hypothesisId", "string", "your label for the hypothesis this probe tests, e.g. H1"},
	{"location", "string", "where the probe is, as path:line, e.g. src/cart.py:42"},
	{"message", "string", "a constant description of what is observed"},
	{"data", "any JSON value", "the changing values that test the hypothesis; keep it small"},
	{"timestamp", "integer", "when it was observed, in Unix epoch milliseconds"},
}

// StoredSchema is what the service adds to each accepted event.
var StoredSchema = []SchemaField{
	{"id", "string", "event id assigned on receipt"},
	{"sequence", "integer", "1, 2, 3 … in arrival order within a reset cycle (SEQ in logs)"},
	{"receivedAt", "integer", "when it was received, in Unix epoch milliseconds"},
}
