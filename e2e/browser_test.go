package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
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

// browserPage is the page under debug: the rendered JavaScript helper pasted
// into an inline script, probe calls of every kind, then a wait until the
// helper's background batches have been answered. The page wraps fetch (test
// instrumentation, not part of the helper) only to see each answer; reading
// an answer cross-origin is itself proof that the service's CORS headers
// worked. When done it writes what it saw into #result and sets the title.
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
<script>
@HELPER@
</script>
<script>
(async () => {
  agentLog("H-nested", "page.html:1", "call nested", () => ({ a: { b: [1, 2.5, { c: null }] }, ok: true, n: -7 }));
  agentLog("H-strings", "page.html:2", "call strings", () => ({ s: @TRICKY@ }));
  agentLog("H-secret", "page.html:3", "call secret", () => ({ password: "hunter2", apiToken: "t0k3n", user: "ann" }));
  agentLog("H-throws", "page.html:4", "call throws", () => ({ x: undefinedVariable.y }));
  for (let i = 0; i < @LOOP@; i++) agentLog("H-loop", "page.html:5", "call loop", () => ({ i }));
  await new Promise((r) => setTimeout(r, 0)); // a later turn of the event loop, as in a real page
  agentLog("H-later", "page.html:6", "call later", () => ({ origin: location.origin }));
  const want = @WANT@;
  const accepted = () => seen.answers.reduce((n, a) => n + ((a.body && a.body.accepted) || 0), 0);
  for (let waited = 0; accepted() < want && seen.errors.length === 0 && waited < 5000; waited += 20) {
    await new Promise((r) => setTimeout(r, 20));
  }
  document.getElementById("result").textContent = JSON.stringify(seen);
  document.title = "done";
})();
</script>
</body></html>
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

// TestBrowserCrossOriginIngest proves the JavaScript HTTP helper works from
// a real browser page on another origin: the page is served from one
// 127.0.0.1 port and posts application/x-ndjson to the Ingest URL on another,
// which needs a CORS preflight the service must answer.
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

func runBrowserPage(t *testing.T, public bool) {
	e := NewEnv(t)
	s := e.Create()
	helper := e.MustRun("template", "--language", "javascript", "--ingest", "http", "--section", "helper", "--session", s.SessionID)
	if !strings.Contains(helper, s.IngestURL) {
		t.Fatalf("helper does not carry the Ingest URL %s:\n%s", s.IngestURL, helper)
	}
	if strings.Contains(strings.ToLower(helper), "</script") {
		t.Fatal("the helper cannot be pasted into an inline <script>: it contains </script")
	}
	tricky, _ := json.Marshal(trickyString)
	want := 5 + browserLoop
	page := strings.NewReplacer("@HELPER@", helper, "@TRICKY@", string(tricky),
		"@LOOP@", fmt.Sprint(browserLoop), "@WANT@", fmt.Sprint(want)).Replace(browserPage)

	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r) // favicon and the like
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, page)
	}))
	defer srv.Close()
	pageOrigin := srv.URL // http://127.0.0.1:<port>, another port than the service's
	if strings.HasPrefix(s.IngestURL, pageOrigin+"/") {
		t.Fatalf("page origin %s is the Ingest URL's own origin", pageOrigin)
	}

	dir := t.TempDir()
	profile, netlog := filepath.Join(dir, "profile"), filepath.Join(dir, "netlog.json")
	var extra []string
	if public {
		extra = append(extra, "--ip-address-space-overrides="+strings.TrimPrefix(pageOrigin, "http://")+"=public")
		prefs := fmt.Sprintf(`{"profile":{"content_settings":{"exceptions":{"loopback_network":{%q:{"setting":1}}}}}}`, pageOrigin+",*")
		if err := os.MkdirAll(filepath.Join(profile, "Default"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(profile, "Default", "Preferences"), []byte(prefs), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "chromium", chromiumArgs(profile, netlog, pageOrigin+"/", extra...)...)
	cmd.Env = append(os.Environ(), "HOME="+dir) // nothing of the user's profile or caches
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	began := time.Now()
	start := began.UnixMilli()
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium: %v\nstderr: %s", err, stderr.String())
	}
	end := time.Now().UnixMilli()
	t.Logf("chromium ran for %s", time.Since(began).Round(time.Millisecond))

	// What the page saw.
	dom := stdout.String()
	if !strings.Contains(dom, "<title>done</title>") {
		t.Fatalf("the page did not finish (title not done); dom:\n%s\nstderr:\n%s", dom, stderr.String())
	}
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
	checkNetLog(t, netlog, s.IngestURL, pageOrigin, public)

	// What the service stored.
	var logs struct {
		Events []map[string]any `json:"events"`
	}
	e.JSON(&logs, "logs", "--session", s.SessionID, "--limit", "1000")
	byHyp := map[string][]map[string]any{}
	for _, ev := range logs.Events {
		h, _ := ev["hypothesisId"].(string)
		byHyp[h] = append(byHyp[h], ev)
		ts, _ := ev["timestamp"].(float64)
		if int64(ts) < start-2000 || int64(ts) > end+2000 {
			t.Errorf("timestamp %v is not epoch milliseconds of the run (%d–%d)", ev["timestamp"], start, end)
		}
		if ev["message"] != "call "+strings.TrimPrefix(h, "H-") || !strings.HasPrefix(fmt.Sprint(ev["location"]), "page.html:") {
			t.Errorf("event fields not as called: %v", ev)
		}
	}
	if len(logs.Events) != want {
		t.Errorf("%d events stored, want %d", len(logs.Events), want)
	}
	for _, name := range []string{"nested", "strings", "secret", "throws", "later"} {
		evs := byHyp["H-"+name]
		if len(evs) != 1 {
			t.Errorf("call %s: %d events stored, want exactly 1", name, len(evs))
			continue
		}
		if name == "later" {
			if d := evs[0]["data"]; !reflect.DeepEqual(d, map[string]any{"origin": pageOrigin}) {
				t.Errorf("call later: data %v, want the page's origin %s", d, pageOrigin)
			}
			continue
		}
		checkTemplateData(t, name, evs, 1)
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
	if n := len(byHyp["H-loop"]); n != browserLoop {
		t.Errorf("loop: %d events stored, want %d", n, browserLoop)
	}

	var status struct {
		Events         int `json:"events"`
		RejectedEvents int `json:"rejectedRecords"`
		RedactedEvents int `json:"redactedEvents"`
	}
	e.JSON(&status, "status", "--session", s.SessionID)
	if status.RejectedEvents != 0 || status.Events != want || status.RedactedEvents != 1 {
		t.Errorf("status: %+v, want %d events, 0 rejected, 1 redacted (the secret)", status, want)
	}
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
