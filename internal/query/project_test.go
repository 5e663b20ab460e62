package query

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"path/filepath"

	"github.com/agentic-debug-mode/debug-mode/internal/safefs"
	"github.com/agentic-debug-mode/debug-mode/internal/store"
)

// TestProjectionPlan: only allowlisted programs are projected, and the
// projection keeps every path they read.
func TestProjectionPlan(t *testing.T) {
	cases := []struct {
		prog string
		want string // "" when the whole event must be decoded
	}{
		{`select(.data.cart | endswith("0000")) | .sequence`, "data.cart sequence"},
		{`select(.hypothesisId == $h) | {seq: .sequence, t: .data.total}`, "data.total hypothesisId sequence"},
		{`select(.data.total > 10 and .data.items < 3)`, "data.items data.total"},
		{`if .data.ok then .location else empty end`, "data.ok location"},
		{`.data.user as $u | select($u.name == "x") | .sequence`, "data.user sequence"},
		{`select(.data.total > 10) | .data`, "data"},
		{`.`, ""},
		{`select(.a) | keys`, ""},
		{`select(length > 3)`, ""},
		{`select(tostring | test("x"))`, ""},
		{`.data | .[]`, ""},
		{`..`, ""},
		{`select("\(.data.a)" == "1")`, ""},
		{`select(.data.a) | @json`, ""},
		{`map(.x)`, ""},
		{`select(. == {})`, ""},
	}
	for _, c := range cases {
		pc := newPathCheck(c.prog)
		p := planProjection(c.prog, pc.paths)
		got := ""
		if p != nil {
			got = strings.Join(projectedPaths(p, ""), " ")
		}
		if got != c.want {
			t.Errorf("%s: projection %q, want %q", c.prog, got, c.want)
		}
	}
}

func projectedPaths(p *projection, prefix string) []string {
	if p.whole {
		return []string{strings.TrimPrefix(prefix, ".")}
	}
	var out []string
	for _, k := range sortedFields(p) {
		out = append(out, projectedPaths(p.fields[k], prefix+"."+k)...)
	}
	return out
}

func sortedFields(p *projection) []string {
	var ks []string
	for k := range p.fields {
		ks = append(ks, k)
	}
	for i := range ks {
		for j := i + 1; j < len(ks); j++ {
			if ks[j] < ks[i] {
				ks[i], ks[j] = ks[j], ks[i]
			}
		}
	}
	return ks
}

// TestProjectionSameResults: projected runs return exactly what whole-event
// runs return, across programs that select, build, fail and page.
func TestProjectionSameResults(t *testing.T) {
	root, err := safefs.OpenRoot(filepath.Join(t.TempDir(), "state"))
	if err != nil {
		t.Fatal(err)
	}
	st, _ := store.Open(root, time.Now, nil)
	s, _ := st.Create()
	var body strings.Builder
	for i := 0; i < 3000; i++ {
		fmt.Fprintf(&body, `{"hypothesisId":"H%d","location":"a.py:%d","message":"m","data":{"cart":"c-%04d","total":%d,"user":{"name":"u%d","tags":["a","b"]},"note":"x\"y\\z\u00e9"},"timestamp":%d}`+"\n", i%4, i%9, i, i%50, i%7, 1784313728231+int64(i%13))
	}
	if _, _, err := s.IngestHTTP([]byte(body.String())); err != nil {
		t.Fatal(err)
	}
	programs := []string{
		`select(.data.cart | endswith("00")) | .sequence`,
		`select(.data.total > 45) | {seq: .sequence, t: .data.total, u: .data.user.name}`,
		`select(.data.user.name == "u3" and .hypothesisId == "H1") | .data.note`,
		`select(.data.total == 7)`,
		`if .data.total > 48 then .location else empty end`,
		`select(.data.cart | test("c-01[0-9]{2}")) | .data.user`,
		`select(.data.total > 10) | .data.total + "x"`,
		`select(.nosuch == 1)`,
	}
	for _, prog := range programs {
		for _, limit := range []int{7, 1000} {
			run := func(project bool) []Page {
				useProjection = project
				defer func() { useProjection = true }()
				var pages []Page
				pos := Position{}
				for range 50 {
					p, err := Run(context.Background(), s, Spec{Program: prog, Limit: limit}, pos, 0)
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
			if a, b := run(true), run(false); !reflect.DeepEqual(a, b) {
				t.Errorf("%s (limit %d): projected and whole runs differ:\n%+v\n%+v", prog, limit, a[0], b[0])
			}
		}
	}
}
