package e2e

// OTLP/HTTP ingest with real OpenTelemetry SDKs (Go, Python, Node.js), a real
// Collector built from the Collector's modules, and two services on hosts of
// their own (network namespaces) whose request is followed by its trace id.
//
// Encodings: the Go exporters (otlploghttp, otlptracehttp) and the Python
// exporter (opentelemetry-exporter-otlp-proto-http) send protobuf only: the
// Python package has no JSON encoding (its Content-Type is fixed to
// application/x-protobuf). JSON is covered by Node.js's
// exporter-*-otlp-http and by the Collector's otlp_http exporter with
// encoding: json.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// toolPath is an install under tools/ (scripts/setup.d puts it there).
func toolPath(t *testing.T, rel, what string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "tools", rel))
	if err == nil {
		_, err = os.Stat(p)
	}
	if err != nil {
		missingRuntime(t, what+" is missing ("+rel+")")
	}
	return p
}

var otelgo struct {
	once sync.Once
	path string
	out  []byte
	err  error
}

// otelgoBinary builds e2e/testdata/otelgo, a module of its own, so the Go
// SDK never becomes a dependency of cmd/debug-mode.
func otelgoBinary(t *testing.T) string {
	t.Helper()
	otelgo.once.Do(func() {
		otelgo.path = filepath.Join(filepath.Dir(binary), "otelgo")
		cmd := exec.Command("go", "build", "-o", otelgo.path, ".")
		cmd.Dir = filepath.Join("testdata", "otelgo")
		otelgo.out, otelgo.err = cmd.CombinedOutput()
	})
	if otelgo.err != nil {
		t.Fatalf("building testdata/otelgo (scripts/setup.d/otel-go.sh downloads its modules): %v\n%s", otelgo.err, otelgo.out)
	}
	return otelgo.path
}

// otelEnviron is the environment of an instrumented program: this one's,
// less any OTEL_ variable, plus the given ones.
func otelEnviron(vars ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "OTEL_") {
			env = append(env, kv)
		}
	}
	return append(env, vars...)
}

// runInstrumented runs an instrumented program to its end and returns its
// stdout and stderr.
func runInstrumented(t *testing.T, env []string, argv ...string) (string, string) {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("%v: %v\nstdout: %s\nstderr: %s", argv, err, out.String(), errb.String())
		}
	case <-time.After(90 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("%v: still running after 90 s\nstdout: %s\nstderr: %s", argv, out.String(), errb.String())
	}
	return out.String(), errb.String()
}

// otlpStatus is what the OTLP tests read from status --json.
type otlpStatus struct {
	Events      int64 `json:"events"`
	Rejected    int64 `json:"rejectedRecords"`
	Diagnostics []struct {
		Source, Level, Position, Reason string
	} `json:"diagnostics"`
}

// waitEvents polls status until a session holds at least n events (the
// Collector forwards a batch a moment after it receives it).
func (e *Env) waitEvents(t *testing.T, id string, n int64) otlpStatus {
	t.Helper()
	var st otlpStatus
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		e.JSON(&st, "status", "--session", id)
		if st.Events >= n {
			return st
		}
	}
	t.Fatalf("session %s has %d events after 60 s, want %d", id, st.Events, n)
	return st
}

// query runs a query and decodes its values.
func (e *Env) query(t *testing.T, id, program string, into any) {
	t.Helper()
	var res struct {
		Values json.RawMessage `json:"values"`
	}
	e.JSON(&res, "query", "--session", id, program)
	if err := json.Unmarshal(res.Values, into); err != nil {
		t.Fatalf("query %s: %v in %s", program, err, res.Values)
	}
}

type otlpEvent struct {
	HypothesisID string `json:"hypothesisId"`
	Location     string `json:"location"`
	Message      string `json:"message"`
	Data         struct {
		Service                               string `json:"serviceName"`
		Severity, Kind, Status, StatusMessage string
		TraceID                               string         `json:"traceId"`
		SpanID                                string         `json:"spanId"`
		ParentSpanID                          string         `json:"parentSpanId"`
		Attributes                            map[string]any `json:"attributes"`
	} `json:"data"`
}

// checkFixture checks what every SDK program sends (testdata/otelgo emit,
// otelsdk/emit.py, otelsdk/emit.cjs): three log records, a failed child
// span in a trace of two, and one record refused for its 200-byte label.
func checkFixture(t *testing.T, e *Env, id, service string, location *regexp.Regexp) {
	t.Helper()
	st := e.waitEvents(t, id, 5)
	if st.Events != 5 || st.Rejected != 1 || len(st.Diagnostics) != 1 {
		t.Fatalf("status: %d events, %d rejected, diagnostics %+v; want 5, 1 and one diagnostic", st.Events, st.Rejected, st.Diagnostics)
	}
	if d := st.Diagnostics[0]; d.Source != "otlp" || d.Level != "rejected" || !strings.Contains(d.Reason, `"hypothesisId" is 200 bytes`) ||
		!strings.HasPrefix(d.Position, "log record ") {
		t.Errorf("diagnostic %+v", d)
	}
	var events []otlpEvent
	e.query(t, id, ".", &events)
	by := map[string]otlpEvent{}
	for _, ev := range events {
		by[ev.Message] = ev
		if ev.Data.Service != service {
			t.Errorf("%q: service %q, want %q", ev.Message, ev.Data.Service, service)
		}
	}
	cart, login, charging := by["cart total computed"], by["login attempt"], by["charging card"]
	root, child := by["checkout"], by["charge card"]
	if cart.HypothesisID != "H1" || !location.MatchString(cart.Location) || cart.Data.Attributes["cart.total"] != 42.5 ||
		cart.Data.Attributes["items"] != 3.0 || cart.Data.Severity != "INFO" {
		t.Errorf("cart total computed: %+v (location want %s)", cart, location)
	}
	if login.HypothesisID != "H2" || login.Data.Attributes["password"] != "[REDACTED]" || !strings.HasPrefix(login.Data.Severity, "WARN") {
		t.Errorf("login attempt: %+v", login)
	}
	if child.HypothesisID != "H1" || child.Data.Status != "ERROR" || child.Data.StatusMessage != "card declined" ||
		child.Data.Attributes["amount"] != 1200.0 || child.Data.ParentSpanID != root.Data.SpanID || root.Data.Kind != "server" {
		t.Errorf("spans: checkout %+v, charge card %+v", root, child)
	}
	if charging.Data.SpanID != child.Data.SpanID || len(child.Data.TraceID) != 32 {
		t.Errorf("the log inside the span is not linked to it: %+v / %+v", charging, child)
	}
	// One trace id selects the trace's spans and the log written inside it.
	var inTrace []string
	e.query(t, id, `select(.data.traceId == "`+child.Data.TraceID+`") | .message`, &inTrace)
	slices.Sort(inTrace)
	if !slices.Equal(inTrace, []string{"charge card", "charging card", "checkout"}) {
		t.Errorf("events of trace %s: %q", child.Data.TraceID, inTrace)
	}
}

func TestOTLPSDKs(t *testing.T) {
	cases := []struct {
		name     string
		service  string
		location *regexp.Regexp // of the "cart total computed" record
		// argv and extra environment of the program; partial is what its SDK
		// prints when it decodes debug-mode's partial-success answer ("" when
		// the SDK does not read answers).
		argv    func(t *testing.T) ([]string, []string)
		partial string
	}{
		{"go+protobuf", "go-sdk", regexp.MustCompile(`^cart\.go:42$`), func(t *testing.T) ([]string, []string) {
			return []string{otelgoBinary(t), "emit"}, nil
		}, "OTLP partial success: 1 of 4 log records were not stored"},
		{"python+protobuf", "python-sdk", regexp.MustCompile(`/otelsdk/emit\.py:\d+$`), func(t *testing.T) ([]string, []string) {
			py := toolPath(t, "otel-python/bin/python", "the OpenTelemetry Python SDK (scripts/setup.d/otel-python.sh)")
			return []string{py, filepath.Join("testdata", "otelsdk", "emit.py")}, nil
		}, ""},
		{"node+json", "node-sdk", regexp.MustCompile(`^cart\.js:42$`), nodeEmit("json"), `Received Partial Success response: {"rejectedLogRecords":"1"`},
		{"node+protobuf", "node-sdk", regexp.MustCompile(`^cart\.js:42$`), nodeEmit("protobuf"), `Received Partial Success response: {"rejectedLogRecords":1`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			argv, extra := c.argv(t)
			e := NewEnv(t)
			s := e.Create()
			if s.OTLPEndpoint != strings.Replace(s.IngestURL, "/ingest/", "/otlp/", 1) {
				t.Fatalf("OTLP Endpoint %q next to Ingest URL %q", s.OTLPEndpoint, s.IngestURL)
			}
			env := otelEnviron(append(extra, "OTEL_EXPORTER_OTLP_ENDPOINT="+s.OTLPEndpoint, "OTEL_SERVICE_NAME="+c.service)...)
			out, errOut := runInstrumented(t, env, argv...)
			if !strings.Contains(out, "program done") {
				t.Fatalf("program output: %s\nstderr: %s", out, errOut)
			}
			if c.partial != "" && !strings.Contains(errOut, c.partial) {
				t.Errorf("the SDK did not report the partial success (want %q); stderr:\n%s", c.partial, errOut)
			}
			checkFixture(t, e, s.SessionID, c.service, c.location)
		})
	}
}

func nodeEmit(encoding string) func(t *testing.T) ([]string, []string) {
	return func(t *testing.T) ([]string, []string) {
		requireRuntimes(t, []string{"node"})
		mods := toolPath(t, "otel-node/node_modules", "the OpenTelemetry JavaScript SDK (scripts/setup.d/otel-node.sh)")
		return []string{"node", filepath.Join("testdata", "otelsdk", "emit.cjs"), encoding}, []string{"NODE_PATH=" + mods}
	}
}

// collector runs the test Collector with an OTLP/HTTP receiver on listen
// and an otlp_http exporter to endpoint, until the test ends.
func collector(t *testing.T, listen, endpoint, encoding string) {
	t.Helper()
	bin := toolPath(t, "otelcol/otelcol", "the OpenTelemetry Collector (scripts/setup.d/otelcol.sh builds it)")
	dir := t.TempDir()
	config := fmt.Sprintf(`receivers:
  otlp:
    protocols:
      http:
        endpoint: %s
processors:
  batch:
    timeout: 200ms
    send_batch_size: 512
    send_batch_max_size: 1024
exporters:
  otlp_http:
    endpoint: %s
    encoding: %s
service:
  telemetry:
    metrics:
      level: none
    logs:
      level: warn
  pipelines:
    logs:
      receivers: [otlp]
      processors: [batch]
      exporters: [otlp_http]
    traces:
      receivers: [otlp]
      processors: [batch]
      exporters: [otlp_http]
`, listen, endpoint, encoding)
	if err := os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	logf, err := os.Create(filepath.Join(dir, "collector.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--config="+filepath.Join(dir, "config.yaml"))
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(15 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
		logf.Close()
		if t.Failed() {
			b, _ := os.ReadFile(logf.Name())
			t.Logf("collector log:\n%s", b)
		}
	})
	waitListening(t, listen, exited)
}

// waitListening waits until addr accepts connections.
func waitListening(t *testing.T, addr string, exited <-chan error) {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		select {
		case err := <-exited:
			t.Fatalf("the process serving %s exited: %v", addr, err)
		default:
		}
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c.Close()
			return
		}
	}
	t.Fatalf("nothing listens on %s after 60 s", addr)
}

// freeLoopbackAddr is a loopback address with a port free just now.
func freeLoopbackAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// TestOTLPThroughCollector: the Go SDK exports to a Collector (OTLP
// receiver → batch processor → otlp_http exporter, gzip by default), which
// forwards to the session in each encoding.
func TestOTLPThroughCollector(t *testing.T) {
	for _, encoding := range []string{"proto", "json"} {
		t.Run(encoding, func(t *testing.T) {
			t.Parallel()
			bin := otelgoBinary(t)
			e := NewEnv(t)
			s := e.Create()
			listen := freeLoopbackAddr(t)
			collector(t, listen, s.OTLPEndpoint, encoding)
			env := otelEnviron("OTEL_EXPORTER_OTLP_ENDPOINT=http://"+listen, "OTEL_SERVICE_NAME=via-collector")
			if out, errOut := runInstrumented(t, env, bin, "emit"); !strings.Contains(out, "program done") {
				t.Fatalf("%s\n%s", out, errOut)
			}
			checkFixture(t, e, s.SessionID, "via-collector", regexp.MustCompile(`^cart\.go:42$`))
		})
	}
}

// testHosts is two network namespaces (hosts A and B) on a private bridge
// whose address in this namespace is where their Collector listens.
type testHosts struct {
	nsA, nsB              string
	addrA, addrB, address string // the hosts' addresses and the Collector's
}

// newTestHosts makes the namespaces and removes them when the test ends,
// whether it passes or not. Where namespaces cannot be made (not root, no
// iproute2) the test skips, or fails under DEBUG_MODE_REQUIRE_RUNTIMES=1.
func newTestHosts(t *testing.T) *testHosts {
	t.Helper()
	if _, err := exec.LookPath("ip"); err != nil {
		missingRuntime(t, "the ip command (iproute2) is missing, so network namespaces cannot be made")
	}
	id := os.Getpid() % 100000
	subnet := fmt.Sprintf("10.231.%d", 1+os.Getpid()%250)
	h := &testHosts{nsA: fmt.Sprintf("dm-a-%d", id), nsB: fmt.Sprintf("dm-b-%d", id),
		addrA: subnet + ".2", addrB: subnet + ".3", address: subnet + ".1"}
	bridge := fmt.Sprintf("dmbr%d", id)
	ip := func(args ...string) error {
		out, err := exec.Command("ip", args...).CombinedOutput()
		if err != nil {
			return fmt.Errorf("ip %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
		}
		return nil
	}
	remove := func() {
		ip("netns", "del", h.nsA) // its veth end goes with it, and so does the peer
		ip("netns", "del", h.nsB)
		ip("link", "del", bridge)
	}
	remove() // what a killed earlier run with this pid left
	t.Cleanup(remove)
	if err := ip("netns", "add", h.nsA); err != nil {
		missingRuntime(t, "network namespaces cannot be made here ("+err.Error()+")")
	}
	must := func(args ...string) {
		t.Helper()
		if err := ip(args...); err != nil {
			t.Fatal(err)
		}
	}
	must("netns", "add", h.nsB)
	must("link", "add", bridge, "type", "bridge")
	must("addr", "add", h.address+"/24", "dev", bridge)
	must("link", "set", bridge, "up")
	for i, host := range []struct{ ns, addr string }{{h.nsA, h.addrA}, {h.nsB, h.addrB}} {
		veth := fmt.Sprintf("dmv%c%d", 'a'+i, id)
		must("link", "add", veth, "type", "veth", "peer", "name", veth+"p")
		must("link", "set", veth+"p", "netns", host.ns)
		must("link", "set", veth, "master", bridge, "up")
		must("-n", host.ns, "addr", "add", host.addr+"/24", "dev", veth+"p")
		must("-n", host.ns, "link", "set", veth+"p", "up")
		must("-n", host.ns, "link", "set", "lo", "up")
	}
	return h
}

// TestOTLPAcrossHosts: a checkout service on host A calls a price service on
// host B; both export to a Collector on a third address, which forwards to
// debug-mode on loopback; the request's trace id selects both services'
// spans and logs.
func TestOTLPAcrossHosts(t *testing.T) {
	hosts := newTestHosts(t)
	bin := otelgoBinary(t)
	e := NewEnv(t)
	s := e.Create()
	collectorAddr := net.JoinHostPort(hosts.address, "4318")
	collector(t, collectorAddr, s.OTLPEndpoint, "proto")
	exporter := "OTEL_EXPORTER_OTLP_ENDPOINT=http://" + collectorAddr

	priceAddr := net.JoinHostPort(hosts.addrB, "8080")
	price := exec.Command("ip", "netns", "exec", hosts.nsB, bin, "serve", "-addr", priceAddr)
	price.Env = otelEnviron(exporter, "OTEL_SERVICE_NAME=price-service")
	var priceOut strings.Builder
	price.Stdout, price.Stderr = &priceOut, &priceOut
	if err := price.Start(); err != nil {
		t.Fatal(err)
	}
	priceExited := make(chan error, 1)
	go func() { priceExited <- price.Wait() }()
	stopped := false
	stopPrice := func() {
		if stopped {
			return
		}
		stopped = true
		price.Process.Signal(syscall.SIGTERM) // ip netns exec became the service itself
		select {
		case <-priceExited:
		case <-time.After(15 * time.Second):
			price.Process.Kill()
			<-priceExited
		}
	}
	t.Cleanup(stopPrice)
	waitListening(t, priceAddr, priceExited)

	out, errOut := runInstrumented(t, otelEnviron(exporter, "OTEL_SERVICE_NAME=checkout-service"),
		"ip", "netns", "exec", hosts.nsA, bin, "call", "-url", "http://"+priceAddr+"/price")
	m := regexp.MustCompile(`(?m)^trace ([0-9a-f]{32})$`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("checkout printed no trace id:\n%s\n%s", out, errOut)
	}
	traceID := m[1]
	stopPrice() // flushes its telemetry
	if !strings.Contains(priceOut.String(), "program done") {
		t.Fatalf("price service output:\n%s", priceOut.String())
	}

	e.waitEvents(t, s.SessionID, 4)
	var got []struct {
		Service, Message, SpanID, ParentSpanID string
	}
	e.query(t, s.SessionID, `select(.data.traceId == "`+traceID+`") | {service: .data.serviceName, message, spanId: .data.spanId, parentSpanId: .data.parentSpanId}`, &got)
	byMsg := map[string]int{}
	for i, g := range got {
		byMsg[g.Service+" "+g.Message] = i
	}
	for _, want := range []string{"checkout-service checkout", "checkout-service price received", "price-service GET /price", "price-service price looked up"} {
		if _, ok := byMsg[want]; !ok {
			t.Errorf("trace %s has no %q event; it has %+v", traceID, want, got)
		}
	}
	if len(got) == 4 {
		client, server := got[byMsg["checkout-service checkout"]], got[byMsg["price-service GET /price"]]
		if server.ParentSpanID != client.SpanID {
			t.Errorf("the price service's span has parent %q, want the checkout span %q", server.ParentSpanID, client.SpanID)
		}
	}
	// The pretty answer an agent reads names both services.
	pretty := e.MustRun("query", "--session", s.SessionID, `select(.data.traceId == "`+traceID+`") | .data.serviceName`)
	sc := bufio.NewScanner(strings.NewReader(pretty))
	services := map[string]bool{}
	for sc.Scan() {
		services[strings.Trim(sc.Text(), `"`)] = true
	}
	if !services["checkout-service"] || !services["price-service"] {
		t.Errorf("query output does not name both services:\n%s", pretty)
	}
}
