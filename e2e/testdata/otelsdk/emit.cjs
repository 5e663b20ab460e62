// A program instrumented with the OpenTelemetry JavaScript SDK (sdk-logs,
// sdk-trace-base), exporting over OTLP/HTTP to OTEL_EXPORTER_OTLP_ENDPOINT:
// the fixture every SDK test in e2e/otlp_test.go checks.
//
//   node emit.cjs json       exporter-{logs,trace}-otlp-http (JSON bodies)
//   node emit.cjs protobuf   exporter-{logs,trace}-otlp-proto (protobuf)
//
// NODE_PATH points at tools/otel-node/node_modules. The SDK's warnings (a
// partial success among them) go to stderr.
'use strict';
const { context, trace, diag, DiagConsoleLogger, DiagLogLevel, SpanKind, SpanStatusCode } = require('@opentelemetry/api');
const { SeverityNumber } = require('@opentelemetry/api-logs');
const { LoggerProvider, BatchLogRecordProcessor } = require('@opentelemetry/sdk-logs');
const { BasicTracerProvider, BatchSpanProcessor } = require('@opentelemetry/sdk-trace-base');
const { detectResources, envDetector } = require('@opentelemetry/resources');

const encoding = process.argv[2];
const pkg = encoding === 'json' ? 'http' : encoding === 'protobuf' ? 'proto' : null;
if (!pkg) {
  console.error('usage: node emit.cjs json|protobuf');
  process.exit(2);
}
const { OTLPLogExporter } = require(`@opentelemetry/exporter-logs-otlp-${pkg}`);
const { OTLPTraceExporter } = require(`@opentelemetry/exporter-trace-otlp-${pkg}`);

diag.setLogger(new DiagConsoleLogger(), DiagLogLevel.WARN);
const resource = detectResources({ detectors: [envDetector] }); // OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES
const tracerProvider = new BasicTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())] });
const loggerProvider = new LoggerProvider({ resource, processors: [new BatchLogRecordProcessor({ exporter: new OTLPLogExporter() })] });
const tracer = tracerProvider.getTracer('shop.checkout');
const logger = loggerProvider.getLogger('shop.checkout');

function log(severityText, body, attributes, ctx) {
  const severityNumber = severityText === 'WARN' ? SeverityNumber.WARN : SeverityNumber.INFO;
  logger.emit({ severityNumber, severityText, body, attributes, context: ctx });
}

async function main() {
  log('INFO', 'cart total computed', {
    'debug.hypothesis': 'H1', 'code.file.path': 'cart.js', 'code.line.number': 42, 'cart.total': 42.5, items: 3,
  });
  log('WARN', 'login attempt', { 'debug.hypothesis': 'H2', password: 'hunter2' });
  const root = tracer.startSpan('checkout', { kind: SpanKind.SERVER });
  const rootCtx = trace.setSpan(context.active(), root);
  const child = tracer.startSpan('charge card', { attributes: { 'debug.hypothesis': 'H1', amount: 1200 } }, rootCtx);
  log('INFO', 'charging card', { 'debug.hypothesis': 'H1' }, trace.setSpan(context.active(), child));
  child.setStatus({ code: SpanStatusCode.ERROR, message: 'card declined' });
  child.end();
  root.end();
  log('INFO', 'label too long', { 'debug.hypothesis': 'H'.repeat(200) });
  await tracerProvider.shutdown();
  await loggerProvider.shutdown();
  console.log('program done');
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
