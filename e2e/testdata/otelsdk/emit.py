"""A program instrumented with the OpenTelemetry Python SDK, exporting over
OTLP/HTTP (protobuf, the only encoding the Python exporter offers) to
OTEL_EXPORTER_OTLP_ENDPOINT: the fixture every SDK test in
e2e/otlp_test.go checks. Logs go through the standard logging module and
the SDK's LoggingHandler, which adds the code.* attributes itself."""

import logging

from opentelemetry import trace
from opentelemetry._logs import set_logger_provider
from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk._logs import LoggerProvider, LoggingHandler
from opentelemetry.sdk._logs.export import BatchLogRecordProcessor
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from opentelemetry.trace import SpanKind, Status, StatusCode

tracer_provider = TracerProvider()
tracer_provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
trace.set_tracer_provider(tracer_provider)
logger_provider = LoggerProvider()
logger_provider.add_log_record_processor(BatchLogRecordProcessor(OTLPLogExporter()))
set_logger_provider(logger_provider)

log = logging.getLogger("shop.checkout")
log.setLevel(logging.INFO)
log.addHandler(LoggingHandler(logger_provider=logger_provider))
tracer = trace.get_tracer("shop.checkout")

log.info("cart total computed", extra={"debug.hypothesis": "H1", "cart.total": 42.5, "items": 3})  # @cart
log.warning("login attempt", extra={"debug.hypothesis": "H2", "password": "hunter2"})
with tracer.start_as_current_span("checkout", kind=SpanKind.SERVER):
    with tracer.start_as_current_span("charge card", attributes={"debug.hypothesis": "H1", "amount": 1200}) as child:
        log.info("charging card", extra={"debug.hypothesis": "H1"})
        child.set_status(Status(StatusCode.ERROR, "card declined"))
log.info("label too long", extra={"debug.hypothesis": "H" * 200})

tracer_provider.shutdown()
logger_provider.shutdown()
print("program done")
