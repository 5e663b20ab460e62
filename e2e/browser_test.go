package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"
)

// browserPage is the page under debug. A classic inline script wraps fetch
// (test instrumentation, not part of the helper) only to see each answer;
// reading an answer cross-origin is itself proof that the service's CORS
// headers worked. The page's module, app.mjs, imports the rendered helper
// module (agent_debug_log.mjs, its export included, served beside it), logs
// probe calls of every kind, then waits until the helper's background
// batches have been answered and writes what it saw into #result.
const browserPage = `<!doctype html>
<html><head><meta charset="utf-8"><title>loading</title></head>
<body><pre id="result"></pre>
<script>
const seen = { answers: [], errors: [], contentTypes: [] };
const realFetch = globalThis.fetch;
globalThis.fetch = (url, init) => {
  seen.contentTypes.push(String((init && init.headers && init.headers["Content-Type"]) || ""));
  return realFetch(url, init).then(
    (r) => { r.clone().json().then((b) => seen.answers.push({ status: r.status, body: b }), (e) => seen.errors.push("body: " + e)); return r; },
    (e) => { seen.errors.push(String(e)); throw e; });
};
</script>
<script type="module" src="/app.mjs"></script>
</body></html>
`

// browserApp is the page's module; each call is on a line of its own so its
// location can be checked (@LINE:name@ marks them).
const browserApp = `@IMPORT@
agentLog("H-nested", "call nested", () => ({ a: { b: [1, 2.5, { c: null }] }, ok: true, n: -7 })); // @LINE:nested@
agentLog("H-strings", "call strings", () => ({ s: @TRICKY@ })); // @LINE:strings@
agentLog("H-secret", "call secret", () => ({ password: "hunter2", apiToken: "t0k3n", user: "ann" })); // @LINE:secret@
agentLog("H-throws", "call throws", () => ({ x: undefinedVariable.y })); // @LINE:throws@
for (let i = 0; i < @LOOP@; i++) agentLog("H-loop", "call loop", () => ({ i })); // @LINE:loop@
await new Promise((r) => setTimeout(r, 0)); // a later turn of the event loop, as in a real page
agentLog("H-later", "call later", () => ({ origin: location.origin })); // @LINE:later@
const want = @WANT@;
const accepted = () => seen.answers.reduce((n, a) => n + ((a.body && a.body.accepted) || 0), 0);
for (let waited = 0; accepted() < want && seen.errors.length === 0 && waited < 5000; waited += 20) {
  await new Promise((r) => setTimeout(r, 20));
}
document.getElementById("result").textContent = JSON.stringify(seen);
document.title = "done";
`

// browserClosing runs in a window that browserOpener opened. It logs one
// event, lets the helper start sending it (the first request, after its
// CORS preflight), logs more while that one is in flight, and closes its
// window in the same task, as a test harness closes a page right after the
// step it wanted: the request in flight fails in the page, and what the
// helper still has queued must go out as the page is hidden and unloaded.
const browserClosing = `@IMPORT@
agentLog("H-nested", "call nested", () => ({ a: { b: [1, 2.5, { c: null }] }, ok: true, n: -7 })); // @LINE:nested@
await null; // the helper's first batch is now in flight
for (let i = 0; i < @LOOP@; i++) agentLog("H-loop", "call loop", () => ({ i, pad: "x".repeat(200) })); // @LINE:loop@
window.close();
`

// browserOpener opens the page under debug, then waits until it is closed
// and the service has stored what it logged (the test server asks the
// service), so the browser does not exit while the closed page's keepalive
// requests are in flight.
const browserOpener = `<!doctype html>
<html><head><meta charset="utf-8"><title>opener</title></head><body>
<pre id="result"></pre>
<script>
const page = window.open("/", "debugged");
(async () => {
  let n = 0;
  for (let waited = 0; waited < 8000 && (n < @WANT@ || !page.closed); waited += 50) {
    await new Promise((r) => setTimeout(r, 50));
    n = Number(await (await fetch("/stored")).text());
  }
  document.getElementById("result").textContent = "closed: " + page.closed;
  document.title = "done";
})();
</script></body></html>
`

// browserLoop is how many events the page sends from one synchronous loop
// (they reach the service in batches).
const browserLoop = 40

// chromiumArgs are the flags this machine's closed network needs (see
// /work/.library/env/machines/polyglot.md), a network log, and a dump of the
// DOM once the page's virtual time budget is spent (pending fetches pause
// virtual time, so the page's own waits never race the network).
func chromiumArgs(profile, netlog, url string, extra ...string) []string {
	args := []string{
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + profile, "--log-net-log=" + netlog,
		"--virtual-time-budget=15000", "--dump-dom",
	}
	return append(append(args, extra...), url)
}

// TestBrowserCrossOriginIngest proves the JavaScript HTTP helper module works
// from a real browser page on another origin: the page is served from one
// 127.0.0.1 port and posts application/x-ndjson to the Ingest URL on another,
// which needs a CORS preflight the service must answer. Each event's
// location is the module's URL and line, which the service stores as the
// module's path in the project (app.mjs:N).
//
// "public-page" also makes Chromium treat the page's server as a public
// address, so its posts to loopback go through Local Network Access (the
// successor of Private Network Access; Chromium 156 no longer sends PNA's
// Access-Control-Request-Private-Network preflight header at all, so the
// service's answer to that header is covered by internal/service tests only).
// The fresh profile grants the page the loopback-network permission, as a
// developer does by clicking Allow on the prompt.
func TestBrowserCrossOriginIngest(t *testing.T) {
	requireRuntimes(t, []string{"chromium"})
	t.Parallel()
	t.Run("loopback-page", func(t *testing.T) { runBrowserPage(t, false) })
	t.Run("public-page", func(t *testing.T) { runBrowserPage(t, true) })
}

// browserSite is a page's project folder and the server that serves it.
type browserSite struct {
	e          *Env
	s          Session
	dir, url   string
	want       int
	lines      map[string]string // call name → the location its events must carry
	pageOrigin string
}

// newBrowserSite writes the app module (with the helper's import and each
// call's line recorded) and the helper module into a project folder, creates
// the session with that folder as its root, and serves it.
//
// slow, when set, makes the page post to a relay on a third origin that
// answers the CORS preflight as the service does and holds each post that
// long before passing it to the Ingest URL: a request in flight is then
// certainly still in flight when the page goes away.
func newBrowserSite(t *testing.T, app string, want int, slow time.Duration) *browserSite {
	t.Helper()
	b := &browserSite{e: NewEnv(t), dir: t.TempDir(), want: want, lines: map[string]string{}}
	b.s = b.e.CreateAt(b.dir)
	var tmpl renderedTemplate
	b.e.JSON(&tmpl, "template", "--language", "javascript", "--ingest", "http", "--session", b.s.SessionID)
	if tmpl.Placement.Helper != "own-file" || tmpl.Placement.HelperFile != "agent_debug_log.mjs" || !strings.Contains(tmpl.Helper, "export function agentLog") {
		t.Fatalf("the browser helper is not a module of its own with its export: %+v", tmpl.Placement)
	}
	if !strings.Contains(tmpl.Helper, b.s.IngestURL) {
		t.Fatalf("helper does not carry the Ingest URL %s", b.s.IngestURL)
	}
	if slow > 0 {
		relay := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Access-Control-Allow-Origin", "*")
			if r.Method == http.MethodOptions {
				w.Header().Set("Access-Control-Allow-Methods", "POST, OPTIONS")
				w.Header().Set("Access-Control-Allow-Headers", "Content-Type")
				w.WriteHeader(http.StatusNoContent)
				return
			}
			body, _ := io.ReadAll(r.Body)
			time.Sleep(slow)
			resp, err := http.Post(b.s.IngestURL, r.Header.Get("Content-Type"), bytes.NewReader(body))
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadGateway)
				return
			}
			defer resp.Body.Close()
			w.WriteHeader(resp.StatusCode)
			io.Copy(w, resp.Body)
		}))
		t.Cleanup(relay.Close)
		tmpl.Helper = strings.ReplaceAll(tmpl.Helper, b.s.IngestURL, relay.URL+"/ingest")
	}
	tricky, _ := json.Marshal(trickyString)
	app = strings.NewReplacer("@IMPORT@\n", tmpl.Import, "@TRICKY@", string(tricky),
		"@LOOP@", fmt.Sprint(browserLoop), "@WANT@", fmt.Sprint(want)).Replace(app)
	for i, l := range strings.Split(app, "\n") {
		if m := regexp.MustCompile(`// @LINE:([a-z]+)@$`).FindStringSubmatch(l); m != nil {
			b.lines[m[1]] = fmt.Sprintf("app.mjs:%d", i+1)
		}
	}
	files := map[string]string{"app.mjs": app, "agent_debug_log.mjs": tmpl.Helper}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(b.dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	opener := strings.ReplaceAll(browserOpener, "@WANT@", fmt.Sprint(want))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, browserPage)
		case "/opener.html":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, opener)
		case "/stored": // what the service has stored so far
			out, _ := exec.Command(binary, "status", "--session", b.s.SessionID, "--json").Output()
			var st struct {
				Result struct {
					Events int `json:"events"`
				} `json:"result"`
			}
			json.Unmarshal(out, &st)
			fmt.Fprint(w, st.Result.Events)
		default:
			src, ok := files[strings.TrimPrefix(r.URL.Path, "/")]
			if !ok {
				http.NotFound(w, r) // favicon and the like
				return
			}
			w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
			fmt.Fprint(w, src)
		}
	}))
	t.Cleanup(srv.Close)
	b.pageOrigin = srv.URL // http://127.0.0.1:<port>, another port than the service's
	if strings.HasPrefix(b.s.IngestURL, b.pageOrigin+"/") {
		t.Fatalf("page origin %s is the Ingest URL's own origin", b.pageOrigin)
	}
	return b
}

// chromium opens the site's path in headless Chromium and returns the DOM it
// ended with and the network log's path.
func (b *browserSite) chromium(t *testing.T, path string, extra ...string) (string, string) {
	t.Helper()
	dir := t.TempDir()
	profile, netlog := filepath.Join(dir, "profile"), filepath.Join(dir, "netlog.json")
	if len(extra) > 0 && extra[0] == "public" {
		extra = []string{"--ip-address-space-overrides=" + strings.TrimPrefix(b.pageOrigin, "http://") + "=public"}
		prefs := fmt.Sprintf(`{"profile":{"content_settings":{"exceptions":{"loopback_network":{%q:{"setting":1}}}}}}`, b.pageOrigin+",*")
		if err := os.MkdirAll(filepath.Join(profile, "Default"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(profile, "Default", "Preferences"), []byte(prefs), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "chromium", chromiumArgs(profile, netlog, b.pageOrigin+path, extra...)...)
	cmd.Env = append(os.Environ(), "HOME="+dir) // nothing of the user's profile or caches
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	began := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium: %v\nstderr: %s", err, stderr.String())
	}
	t.Logf("chromium ran for %s", time.Since(began).Round(time.Millisecond))
	dom := stdout.String()
	if !strings.Contains(dom, "<title>done</title>") {
		t.Fatalf("the page did not finish (title not done); dom:\n%s\nstderr:\n%s", dom, stderr.String())
	}
	return dom, netlog
}

// stored checks what the service stored: want events, each at its call's
// location, and returns them by hypothesis.
func (b *browserSite) stored(t *testing.T, start, end int64) map[string][]map[string]any {
	t.Helper()
	byHyp := map[string][]map[string]any{}
	evs := b.e.Logged(b.s.SessionID)
	for _, ev := range evs {
		h, _ := ev["hypothesisId"].(string)
		name := strings.TrimPrefix(h, "H-")
		byHyp[h] = append(byHyp[h], ev)
		ts, _ := ev["timestamp"].(float64)
		if int64(ts) < start-2000 || int64(ts) > end+2000 {
			t.Errorf("timestamp %v is not epoch milliseconds of the run (%d–%d)", ev["timestamp"], start, end)
		}
		if ev["message"] != "call "+name || ev["location"] != b.lines[name] {
			t.Errorf("event fields not as called (want location %s): %v", b.lines[name], ev)
		}
	}
	if len(evs) != b.want {
		t.Errorf("%d events stored, want %d", len(evs), b.want)
	}
	got := map[float64]int{}
	for _, ev := range byHyp["H-loop"] {
		d, _ := ev["data"].(map[string]any)
		i, _ := d["i"].(float64)
		got[i]++
	}
	for i := 0; i < browserLoop; i++ {
		if got[float64(i)] != 1 {
			t.Errorf("loop event i=%d stored %d times, want once", i, got[float64(i)])
		}
	}
	return byHyp
}

func runBrowserPage(t *testing.T, public bool) {
	want := 5 + browserLoop
	b := newBrowserSite(t, browserApp, want, 0)
	var extra []string
	if public {
		extra = []string{"public"}
	}
	start := time.Now().UnixMilli()
	dom, netlog := b.chromium(t, "/", extra...)
	end := time.Now().UnixMilli()

	// What the page saw.
	m := regexp.MustCompile(`(?s)<pre id="result">(.*?)</pre>`).FindStringSubmatch(dom)
	if m == nil {
		t.Fatalf("no #result in the dom:\n%s", dom)
	}
	var seen struct {
		Answers []struct {
			Status int `json:"status"`
			Body   struct {
				Accepted int    `json:"accepted"`
				Rejected int    `json:"rejected"`
				Error    string `json:"error"`
			} `json:"body"`
		} `json:"answers"`
		Errors       []string `json:"errors"`
		ContentTypes []string `json:"contentTypes"`
	}
	if err := json.Unmarshal([]byte(html.UnescapeString(m[1])), &seen); err != nil {
		t.Fatalf("decoding #result %q: %v", m[1], err)
	}
	if len(seen.Errors) > 0 {
		t.Fatalf("the page's posts failed: %v (network log: %s)", seen.Errors, netlog)
	}
	accepted := 0
	for _, a := range seen.Answers {
		if a.Status != http.StatusOK || a.Body.Rejected != 0 {
			t.Errorf("the service answered the page %d %+v", a.Status, a.Body)
		}
		accepted += a.Body.Accepted
	}
	if accepted != want {
		t.Errorf("the page saw %d events accepted in %d requests, want %d", accepted, len(seen.Answers), want)
	}
	for _, ct := range seen.ContentTypes {
		if ct != "application/x-ndjson" {
			t.Errorf("the helper posted Content-Type %q (only application/x-ndjson or application/json force a preflight)", ct)
		}
	}
	t.Logf("the page saw %d events accepted in %d requests", accepted, len(seen.Answers))

	// What the browser did on the wire.
	checkNetLog(t, netlog, b.s.IngestURL, b.pageOrigin, public)

	// What the service stored.
	byHyp := b.stored(t, start, end)
	for _, name := range []string{"nested", "strings", "secret", "throws", "later"} {
		evs := byHyp["H-"+name]
		if len(evs) != 1 {
			t.Errorf("call %s: %d events stored, want exactly 1", name, len(evs))
			continue
		}
		if name == "later" {
			if d := evs[0]["data"]; !reflect.DeepEqual(d, map[string]any{"origin": b.pageOrigin}) {
				t.Errorf("call later: data %v, want the page's origin %s", d, b.pageOrigin)
			}
			continue
		}
		checkTemplateData(t, name, evs, 1)
	}
	var status struct {
		Events         int `json:"events"`
		RejectedEvents int `json:"rejectedRecords"`
		RedactedEvents int `json:"redactedEvents"`
	}
	b.e.JSON(&status, "status", "--session", b.s.SessionID)
	if status.RejectedEvents != 0 || status.Events != want || status.RedactedEvents != 1 {
		t.Errorf("status: %+v, want %d events, 0 rejected, 1 redacted (the secret)", status, want)
	}
}

// TestBrowserPageClosedRightAfterLogging: a page closed right after it
// logged (its first request still in flight, after a CORS preflight, the
// rest queued behind it) has every event stored: the helper sends what is
// queued as keepalive requests when the page is hidden and unloaded.
func TestBrowserPageClosedRightAfterLogging(t *testing.T) {
	requireRuntimes(t, []string{"chromium"})
	t.Parallel()
	b := newBrowserSite(t, browserClosing, 1+browserLoop, 500*time.Millisecond)
	start := time.Now().UnixMilli()
	dom, _ := b.chromium(t, "/opener.html", "--disable-popup-blocking")
	end := time.Now().UnixMilli()
	if !strings.Contains(dom, "closed: true") {
		t.Fatalf("the page under debug was not closed:\n%s", dom)
	}
	b.stored(t, start, end)
}

// checkNetLog asserts, from Chromium's own network log, that the browser sent
// a CORS preflight (OPTIONS, from the page's origin) to the Ingest URL, that
// the service answered it 204 with Access-Control-Allow-Origin, and that every
// POST to the Ingest URL came after it. For a public page it also asserts the
// posts crossed from the public to the loopback address space.
func checkNetLog(t *testing.T, path, ingestURL, pageOrigin string, public bool) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("chromium wrote no network log: %v", err)
	}
	var log struct {
		Constants struct {
			EventTypes map[string]int `json:"logEventTypes"`
		} `json:"constants"`
		Events []struct {
			Type   int `json:"type"`
			Source struct {
				ID int `json:"id"`
			} `json:"source"`
			Params map[string]any `json:"params"`
		} `json:"events"`
	}
	if err := json.Unmarshal(b, &log); err != nil {
		// A log cut short at exit lacks its closing brackets.
		if err2 := json.Unmarshal(append(bytes.TrimRight(bytes.TrimSpace(b), ","), "]}"...), &log); err2 != nil {
			t.Fatalf("decoding the network log %s: %v", path, err)
		}
	}
	typ := func(name string) int {
		id, ok := log.Constants.EventTypes[name]
		if !ok {
			t.Fatalf("network log has no event type %s", name)
		}
		return id
	}
	startJob, sendHeaders, readHeaders, lnaCheck := typ("URL_REQUEST_START_JOB"), typ("HTTP_TRANSACTION_SEND_REQUEST_HEADERS"), typ("HTTP_TRANSACTION_READ_RESPONSE_HEADERS"), typ("LOCAL_NETWORK_ACCESS_CHECK")
	method := map[int]string{} // source id → method of a request to the Ingest URL
	var preflights, posts, postsBeforePreflight, lnaCrossings int
	for _, ev := range log.Events {
		id := ev.Source.ID
		switch ev.Type {
		case startJob:
			if ev.Params["url"] != ingestURL {
				continue
			}
			m, _ := ev.Params["method"].(string)
			method[id] = m
			if m == "POST" {
				posts++
				if preflights == 0 {
					postsBeforePreflight++
				}
			}
		case sendHeaders:
			if method[id] == "OPTIONS" && !hasHeader(ev.Params, "Origin: "+pageOrigin) {
				t.Errorf("the preflight did not carry Origin: %s: %v", pageOrigin, ev.Params["headers"])
			}
		case readHeaders:
			if method[id] != "OPTIONS" {
				continue
			}
			if !hasHeader(ev.Params, "HTTP/1.1 204 No Content") || !hasHeader(ev.Params, "Access-Control-Allow-Origin: *") {
				t.Errorf("the service's answer to the preflight: %v", ev.Params["headers"])
			}
			preflights++
		case lnaCheck:
			if _, ok := method[id]; ok && ev.Params["client_address_space"] == "public" && ev.Params["resource_address_space"] == "loopback" {
				lnaCrossings++
			}
		}
	}
	if preflights == 0 {
		t.Errorf("no answered CORS preflight (OPTIONS) to %s in the network log %s", ingestURL, path)
	}
	if posts == 0 || postsBeforePreflight > 0 {
		t.Errorf("%d POSTs to the Ingest URL, %d of them before any preflight", posts, postsBeforePreflight)
	}
	if public && lnaCrossings == 0 {
		t.Errorf("the page was to be public, but no request crossed from the public to the loopback address space (did --ip-address-space-overrides change?)")
	}
	t.Logf("network log: %d preflight(s) answered, %d POST(s) to the Ingest URL, %d Local Network Access check(s) public→loopback", preflights, posts, lnaCrossings)
}

// hasHeader reports whether a network log event's headers list holds line.
func hasHeader(params map[string]any, line string) bool {
	hs, _ := params["headers"].([]any)
	for _, h := range hs {
		if s, _ := h.(string); strings.EqualFold(s, line) {
			return true
		}
	}
	return false
}
