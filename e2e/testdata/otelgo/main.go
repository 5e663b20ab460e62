// Command otelgo is a program instrumented with the OpenTelemetry Go SDK
// (otel/sdk, sdk/log, otlptracehttp, otlploghttp) for debug-mode's
// end-to-end tests. Its exporters take everything from the standard
// variables (OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_SERVICE_NAME, ...).
//
//	otelgo emit              the SDK test's fixed logs and spans, then exit
//	otelgo serve -addr A     an HTTP service: each GET /price continues the
//	                         caller's trace in a server span and logs in it
//	otelgo call -url U       a client: a "checkout" span that calls U with
//	                         the trace context; prints the trace id
//
// Errors the SDK reports (a partial success among them) are printed to
// stderr as "otel error: ...".
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlplog/otlploghttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	otellog "go.opentelemetry.io/otel/log"
	"go.opentelemetry.io/otel/propagation"
	sdklog "go.opentelemetry.io/otel/sdk/log"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

type telemetry struct {
	tp     *sdktrace.TracerProvider
	lp     *sdklog.LoggerProvider
	tracer trace.Tracer
	logger otellog.Logger
}

func setup(ctx context.Context) (*telemetry, error) {
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) { fmt.Fprintln(os.Stderr, "otel error:", err) }))
	otel.SetTextMapPropagator(propagation.TraceContext{})
	te, err := otlptracehttp.New(ctx)
	if err != nil {
		return nil, err
	}
	le, err := otlploghttp.New(ctx)
	if err != nil {
		return nil, err
	}
	t := &telemetry{
		tp: sdktrace.NewTracerProvider(sdktrace.WithBatcher(te)),
		lp: sdklog.NewLoggerProvider(sdklog.WithProcessor(sdklog.NewBatchProcessor(le))),
	}
	t.tracer = t.tp.Tracer("shop.checkout")
	t.logger = t.lp.Logger("shop.checkout")
	return t, nil
}

// shutdown flushes both providers: nothing is lost when the program ends.
func (t *telemetry) shutdown() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := t.tp.Shutdown(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "otel error:", err)
	}
	if err := t.lp.Shutdown(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "otel error:", err)
	}
}

func (t *telemetry) log(ctx context.Context, sev otellog.Severity, body string, attrs ...attribute.KeyValue) {
	var r otellog.Record
	r.SetTimestamp(time.Now())
	r.SetSeverity(sev)
	r.SetSeverityText(strings.ToUpper(sev.String()))
	r.SetBody(attribute.StringValue(body))
	r.AddAttributes(attrs...)
	t.logger.Emit(ctx, r)
}

// emit sends the fixture every SDK test checks: three log records, a
// trace of two spans (one failed), and a record debug-mode refuses.
func emit(t *telemetry) {
	ctx := context.Background()
	t.log(ctx, otellog.SeverityInfo, "cart total computed",
		attribute.String("debug.hypothesis", "H1"), attribute.String("code.file.path", "cart.go"), attribute.Int("code.line.number", 42),
		attribute.Float64("cart.total", 42.5), attribute.Int("items", 3))
	t.log(ctx, otellog.SeverityWarn, "login attempt", attribute.String("debug.hypothesis", "H2"), attribute.String("password", "hunter2"))
	ctx, root := t.tracer.Start(ctx, "checkout", trace.WithSpanKind(trace.SpanKindServer))
	cctx, child := t.tracer.Start(ctx, "charge card", trace.WithAttributes(attribute.String("debug.hypothesis", "H1"), attribute.Int("amount", 1200)))
	t.log(cctx, otellog.SeverityInfo, "charging card", attribute.String("debug.hypothesis", "H1"))
	child.SetStatus(codes.Error, "card declined")
	child.End()
	root.End()
	t.log(context.Background(), otellog.SeverityInfo, "label too long", attribute.String("debug.hypothesis", strings.Repeat("H", 200)))
}

// serve answers GET /price in a server span that continues the caller's
// trace, until SIGTERM.
func serve(t *telemetry, addr string) error {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /price", func(w http.ResponseWriter, r *http.Request) {
		ctx := otel.GetTextMapPropagator().Extract(r.Context(), propagation.HeaderCarrier(r.Header))
		ctx, span := t.tracer.Start(ctx, "GET /price", trace.WithSpanKind(trace.SpanKindServer),
			trace.WithAttributes(attribute.String("debug.hypothesis", "H1")))
		defer span.End()
		t.log(ctx, otellog.SeverityInfo, "price looked up", attribute.String("debug.hypothesis", "H1"), attribute.Int("cents", 1999))
		io.WriteString(w, "1999\n")
	})
	srv := &http.Server{Addr: addr, Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, os.Interrupt)
	errc := make(chan error, 1)
	go func() { errc <- srv.ListenAndServe() }()
	fmt.Println("serving", addr)
	select {
	case err := <-errc:
		return err
	case <-stop:
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return srv.Shutdown(ctx)
}

// call runs one checkout that calls url with the trace context and prints
// the trace id.
func call(t *telemetry, url string) error {
	ctx, span := t.tracer.Start(context.Background(), "checkout", trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(attribute.String("debug.hypothesis", "H1")))
	defer span.End()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	otel.GetTextMapPropagator().Inject(ctx, propagation.HeaderCarrier(req.Header))
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		return err
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	t.log(ctx, otellog.SeverityInfo, "price received", attribute.String("debug.hypothesis", "H1"), attribute.String("price", strings.TrimSpace(string(b))))
	fmt.Println("trace", span.SpanContext().TraceID())
	return nil
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: otelgo emit | serve -addr host:port | call -url URL")
		os.Exit(2)
	}
	fs := flag.NewFlagSet(os.Args[1], flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:8080", "address to serve on")
	url := fs.String("url", "", "URL to call")
	fs.Parse(os.Args[2:])
	t, err := setup(context.Background())
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	switch os.Args[1] {
	case "emit":
		emit(t)
	case "serve":
		err = serve(t, *addr)
	case "call":
		err = call(t, *url)
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	t.shutdown()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println("program done")
}
