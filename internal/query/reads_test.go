package query

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/itchyny/gojq"

	"github.com/agentic-debug-mode/debug-mode/internal/safefs"
	"github.com/agentic-debug-mode/debug-mode/internal/store"
)

// TestEventReadsPlan: the analysis finds every field a -n or --slurp
// program reads of the events, and refuses (whole events) every program
// that could observe more than those fields.
func TestEventReadsPlan(t *testing.T) {
	const whole = "WHOLE"
	cases := []struct {
		prog      string
		nullInput bool
		want      string // the paths read, sorted, or WHOLE
	}{
		// -n: events come from input/inputs.
		{`reduce inputs as $e ({}; .[$e.data.month] += 1)`, true, "data.month"},
		{`reduce inputs as $e (0; . + 1)`, true, ""},
		{`[inputs | .data.ms] | max`, true, "data.ms"},
		{`[inputs] | length`, true, ""},
		{`input.sequence`, true, "sequence"},
		{`inputs | select(.data.stale) | .sequence`, true, "data.stale sequence"},
		{`first(inputs | select(.hypothesisId == "H2")) | .data`, true, "data hypothesisId"},
		{`reduce inputs as $e (null; $e) | .location`, true, "location"},
		{`foreach inputs as $e (0; . + 1; select(. % 1000 == 0) | [., $e.data.k])`, true, "data.k"},
		{`reduce inputs as $e ({}; .[$e.location] |= (. // 0) + ($e.data.n // 0))`, true, "data.n location"},
		{`[inputs | {k: .data.k, t: .timestamp}] | group_by(.k) | map(length)`, true, "data.k timestamp"},
		{`reduce inputs as {data: $d} (0; . + $d.n)`, true, whole},
		{`[inputs | .data["k"]]`, true, "data.k"},
		{`[inputs | ."location"]`, true, "location"},
		{`[inputs | .data.a?.b]`, true, "data.a.b"},
		{`[inputs | .data | .a]`, true, "data"},
		{`[inputs | .data[]]`, true, "data"},
		{`[inputs | .data[0]]`, true, "data"},
		{`[inputs | "\(.data.k)"]`, true, "data.k"},
		{`first(inputs)`, true, whole},
		{`input`, true, whole},
		{`[inputs | length]`, true, whole},
		{`[inputs | keys]`, true, whole},
		{`[inputs | tojson]`, true, whole},
		{`[inputs | tostring]`, true, whole},
		{`[inputs | @json]`, true, whole},
		{`[inputs | "\(.)"]`, true, whole},
		{`[inputs | has("data")]`, true, whole},
		{`[inputs | to_entries]`, true, whole},
		{`[inputs | .[]]`, true, whole},
		{`[inputs | .[$k]]`, true, whole},
		{`[inputs | del(.id)] | length`, true, whole},
		{`[inputs | . == {}]`, true, whole},
		{`[inputs | {e: .}] | length`, true, whole},
		{`reduce inputs as $e ([]; . + [$e]) | length`, true, whole},
		{`reduce inputs as $e (0; . + ($e | length))`, true, whole},
		{`inputs as $e | {$e} | length`, true, whole},
		{`def f: .data; [inputs | f]`, true, whole},
		{`[inputs | .. | numbers]`, true, whole},
		{`[inputs | paths]`, true, whole},
		{`[inputs | getpath(["data"])]`, true, whole},
		{`[inputs | error]`, true, whole},
		{`[inputs | .[0]]`, true, whole},
		{`[inputs] | sort | length`, true, whole},
		{`[inputs] | add | length`, true, whole},
		{`[inputs] | unique | length`, true, whole},
		// --slurp: the events are the elements of the input array.
		{`length`, false, ""},
		{`group_by(.data.k) | map({k: .[0].data.k, n: length})`, false, "data.k"},
		{`group_by(.data.key) | map({key: .[0].data.key, n: length, max_age: (map(.data.age_ms) | max)})`, false, "data.age_ms data.key"},
		{`map(.data.age_ms) | {min: min, max: max, mean: (add / length)}`, false, "data.age_ms"},
		{`. as $e | [range(1; length) | select($e[.].data.gen < $e[. - 1].data.gen) | {seq: $e[.].sequence}]`, false, "data.gen sequence"},
		{`map(select(.data.stale)) | length`, false, "data.stale"},
		{`[.[] | select(.data.x > 1)] | length`, false, "data.x"},
		{`sort_by(.timestamp) | .[0].sequence`, false, "sequence timestamp"},
		{`max_by(.data.n).sequence`, false, "data.n sequence"},
		{`.[:10] | map(.id)`, false, "id"},
		{`.[-1].location`, false, "location"},
		{`first.data`, false, "data"},
		{`reverse | .[0].id`, false, "id"},
		{`any(.data.bad)`, false, "data.bad"},
		{`unique_by(.location) | length`, false, "location"},
		{`.[0]`, false, whole},
		{`.[0:2]`, false, whole},
		{`.[]`, false, whole},
		{`map(keys)`, false, whole},
		{`map(tojson)`, false, whole},
		{`sort | length`, false, whole},
		{`unique | length`, false, whole},
		{`add`, false, whole},
		{`.["a"]`, false, whole},
		{`.[.[0].data.k]`, false, whole},
		{`.[$i].data`, false, whole},
		{`map(.) | tostring`, false, whole},
		{`group_by(.)`, false, whole},
		{`group_by(.data.k) | map(.[0])`, false, whole},
		{`tojson | length`, false, whole},
		{`.. | numbers`, false, whole},
		{`flatten | length`, false, whole},
		{`to_entries | length`, false, whole},
		{`map(select(. != null)) | length`, false, whole},
		{`[paths] | length`, false, whole},
		{`input`, false, ""}, // fails the same way whatever the events
	}
	for _, c := range cases {
		q, err := gojq.Parse(c.prog)
		if err != nil {
			t.Fatalf("%s: %v", c.prog, err)
		}
		paths, ok := eventReads(q, c.nullInput)
		got := whole
		if ok {
			var ps []string
			for _, p := range paths {
				ps = append(ps, strings.Join(p, "."))
			}
			sort.Strings(ps)
			got = strings.Join(ps, " ")
		}
		if got != c.want {
			t.Errorf("%s (null input %v): reads %q, want %q", c.prog, c.nullInput, got, c.want)
		}
	}
}

// equivalenceSession holds events of every shape a field read can meet:
// data as an object (nested, with escapes and unicode), a string, an array,
// a number, null; fields missing; repeated and unique values.
func equivalenceSession(t *testing.T) *store.Session {
	t.Helper()
	root, err := safefs.OpenRoot(filepath.Join(t.TempDir(), "state"))
	if err != nil {
		t.Fatal(err)
	}
	st, _ := store.Open(root, time.Now, nil)
	s, _ := st.Create()
	var body strings.Builder
	for i := 0; i < 3000; i++ {
		var data string
		switch i % 11 {
		case 0:
			data = `"a string"`
		case 1:
			data = `[1,2,{"k":"x"}]`
		case 2:
			data = `null`
		case 3:
			data = fmt.Sprint(i)
		default:
			data = fmt.Sprintf(`{"k":"k%d","month":"2026-%02d","n":%d,"ms":%d.5,"stale":%v,"user":{"name":"u%d","tags":["a","b"]},"note":"x\"y\\z\u00e9","a\"b":%d%s}`,
				i%7, i%12+1, i%5, i%97, i%9 == 0, i%3, i, map[bool]string{true: `,"gen":1`, false: ""}[i%4 == 0])
		}
		fmt.Fprintf(&body, `{"hypothesisId":"H%d","location":"a.py:%d","message":"m %d","data":%s,"timestamp":%d}`+"\n", i%4, i%9, i%5, data, 1784313728231+int64(i%13))
	}
	if _, _, err := s.IngestHTTP([]byte(body.String())); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestEventReadsSameResults: -n and --slurp programs the analysis projects
// return exactly what they return on whole events — values, pages, cursors,
// warnings and errors alike.
func TestEventReadsSameResults(t *testing.T) {
	s := equivalenceSession(t)
	programs := []struct {
		prog      string
		nullInput bool
	}{
		{`reduce inputs as $e ({}; .[$e.data.month | tostring] += 1)`, true},
		{`reduce inputs as $e (0; . + 1)`, true},
		{`[inputs | .data.ms] | max`, true},
		{`[inputs | .data.ms?] | min`, true},
		{`[inputs] | length`, true},
		{`inputs | select(.data.stale? == true) | .sequence`, true},
		{`inputs | .data.user`, true},
		{`inputs | .data.k`, true},             // fails on the first event whose data is not an object
		{`inputs | .data.user.name.x`, true},   // fails on a string
		{`inputs | try .data.k catch .`, true}, // the error messages themselves
		{`inputs | .data.note + "!"`, true},    // null + "!" and "x\"y…" + "!"
		{`inputs | .data["a\"b"]?`, true},      // a key with an escape
		{`first(inputs | select(.data.gen? == 1)) | .sequence`, true},
		{`foreach inputs as $e (0; . + 1; select(. % 500 == 0) | [., $e.location, $e.data.n?])`, true},
		{`[inputs | {k: .data.k?, h: .hypothesisId}] | group_by(.k) | map({k: .[0].k, n: length})`, true},
		{`reduce inputs as $e ({}; .[$e.hypothesisId] |= (. // 0) + ($e.data.n? // 0))`, true},
		{`[limit(5; inputs)] | map(.timestamp)`, true},
		{`input | .message`, true},
		{`reduce inputs as $e (0; . + ($e.data.totl? // 0))`, true}, // a field no event has: the warning
		{`map(.data.totl?) | length`, false},
		{`[inputs | .data | type] | unique`, true},
		{`[inputs | .data[]?] | length`, true},
		{`group_by(.data.k?) | map({k: .[0].data.k?, n: length})`, false},
		{`group_by(.data | type) | map({t: (.[0].data | type), n: length})`, false},
		{`map(.data.ms?) | {min: min, max: max, n: length}`, false},
		{`map(select(.data.stale? == true)) | length`, false},
		{`. as $e | [range(1; length) | select($e[.].data.n? < $e[. - 1].data.n?) | $e[.].sequence] | length`, false},
		{`sort_by(.timestamp, .data.k?) | map(.sequence) | .[:20]`, false},
		{`map(.data.k)`, false}, // fails on a string
		{`length`, false},
		{`.[] | .data.user?`, false},
		{`unique_by(.location) | map(.location)`, false},
		{`max_by(.data.n?) | .sequence`, false},
	}
	for _, c := range programs {
		q, _ := gojq.Parse(c.prog)
		if _, ok := eventReads(q, c.nullInput); !ok {
			t.Errorf("%s: not analysable, so this test would compare nothing", c.prog)
			continue
		}
		for _, limit := range []int{7, 1000} {
			run := func(project bool) []Page {
				useProjection = project
				defer func() { useProjection = true }()
				var pages []Page
				pos := Position{}
				for range 100 {
					p, err := Run(context.Background(), s, Spec{Program: c.prog, NullInput: c.nullInput, Slurp: !c.nullInput, Limit: limit}, pos, 0)
					if err != nil {
						p = Page{Warnings: []string{"error: " + err.Error()}}
					}
					pages = append(pages, p)
					if err != nil || p.Next == nil {
						break
					}
					pos = *p.Next
				}
				return pages
			}
			a, b := run(true), run(false)
			if !reflect.DeepEqual(a, b) {
				t.Errorf("%s (limit %d): projected and whole runs differ:\n%s\n%s", c.prog, limit, pagesText(a), pagesText(b))
			}
		}
	}
}

func pagesText(pages []Page) string {
	var b strings.Builder
	for _, p := range pages {
		fmt.Fprintf(&b, "events %d matched %d complete %v warnings %q values", p.Events, p.Matched, p.Complete, p.Warnings)
		for _, v := range p.Values {
			b.WriteString(" " + string(v))
		}
		b.WriteString("\n")
	}
	return b.String()
}
