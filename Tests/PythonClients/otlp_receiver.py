#!/usr/bin/env python3
"""Mend's OTLP export, decoded by OpenTelemetry's own protobuf definitions (issue 31).

A small OTLP/HTTP receiver on 127.0.0.1 takes what `mend` and `mend-server` post to `/v1/traces` and `/v1/metrics`
when the standard `OTEL_*` variables ask, and parses it with the `opentelemetry-proto` package from PyPI (no code of
Mend's reads it). Then it checks the conventions' attribute names and types:

- `mend demo` (the app, mend-server and the emulator in one process): client spans per attempt with
  `http.request.method`, `server.address`, `server.port`, `url.full` (no secret query value), the status, a resend
  count and `error.type` as a Mend code; server spans named by their route that continue the app's attempt; the
  pipeline's waits as `mend.wait` events; `http.client.request.duration` in seconds, `http.client.active_requests`,
  `http.server.request.duration` and Mend's counters;
- `mend-server` as its own process: a request that sent a W3C `traceparent` is a server span of that trace under
  that parent; a refused request's `X-Request-Id` (its error body's reference id) is its trace id; a request no
  route matches is a span named by its method alone, without `http.route` (nor on its histogram point);
- every attribute and metric name against PyPI's `opentelemetry-semantic-conventions` registry (an unknown name
  outside `mend.` fails), each attribute's type, the metrics' kinds (semconv_registry.py), span kinds and names:
  a GraphQL operation's span `{type} {name}` with `graphql.operation.*`, a REST call's `url.template`;
- `OTEL_EXPORTER_OTLP_HEADERS` reaches the collector percent-decoded (W3C Baggage's format).

Usage: otlp_receiver.py <path to the mend binary> <path to the mend-server binary> <scratch folder>
"""
import http.server
import os
import re
import secrets
import signal
import subprocess
import sys
import threading

import requests
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import ExportMetricsServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.trace.v1.trace_pb2 import Span, Status

from emulator_process import Emulator, start_mend_server, Results, expect
from semconv_registry import check_names, check_types

APP_ID = "111111111111111"
APP_SECRET = "0123456789abcdef0123456789abcdef"
CODE = re.compile(r"^[a-z]+/\d+(/\d+)?$")


class Receiver:
    """Collects every OTLP/HTTP export posted to it; `posts` keeps each as it arrived: (path, headers, raw body)."""

    def __init__(self):
        self.traces = []
        self.metrics = []
        self.content_types = set()
        self.posts = []
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                receiver.posts.append((self.path, dict(self.headers), body))
                receiver.content_types.add(self.headers.get("Content-Type"))
                if self.path == "/v1/traces":
                    request = ExportTraceServiceRequest()
                    request.ParseFromString(body)
                    receiver.traces.append(request)
                elif self.path == "/v1/metrics":
                    request = ExportMetricsServiceRequest()
                    request.ParseFromString(body)
                    receiver.metrics.append(request)
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.endpoint = f"http://127.0.0.1:{self.server.server_address[1]}"

    def spans(self, service):
        """(resource attributes, span) for every span a process named `service` exported."""
        found = []
        for request in self.traces:
            for resource_spans in request.resource_spans:
                attributes = values(resource_spans.resource.attributes)
                if attributes.get("service.name") != service:
                    continue
                for scope in resource_spans.scope_spans:
                    found.extend(scope.spans)
        return found

    def metric_list(self, service):
        found = []
        for request in self.metrics:
            for resource_metrics in request.resource_metrics:
                if values(resource_metrics.resource.attributes).get("service.name") != service:
                    continue
                for scope in resource_metrics.scope_metrics:
                    found.extend(scope.metrics)
        return found


def value(any_value):
    kind = any_value.WhichOneof("value")
    return getattr(any_value, kind) if kind else None


def values(attributes):
    return {attribute.key: value(attribute.value) for attribute in attributes}


def kinds(attributes):
    return {attribute.key: attribute.value.WhichOneof("value") for attribute in attributes}


# A collector credential as OTEL_EXPORTER_OTLP_HEADERS holds it: percent-encoded (the spec's W3C Baggage format).
HEADERS = "authorization=Basic%20bWVuZDpjb2xsZWN0b3I%3D,x-team=a%2Cb%20c"
DECODED = {"authorization": "Basic bWVuZDpjb2xsZWN0b3I=", "x-team": "a,b c"}


def environment(receiver, service):
    return dict(os.environ, OTEL_EXPORTER_OTLP_ENDPOINT=receiver.endpoint, OTEL_SERVICE_NAME=service,
                OTEL_METRIC_EXPORT_INTERVAL="500", OTEL_BSP_SCHEDULE_DELAY="200", OTEL_EXPORTER_OTLP_HEADERS=HEADERS)


def check_headers(receiver):
    expect(receiver.posts, "nothing was posted")
    for path, headers, _ in receiver.posts:
        lowered = {name.lower(): value for name, value in headers.items()}
        for name, value in DECODED.items():
            expect(lowered.get(name) == value, f"{path}: {name} arrived as {lowered.get(name)!r}, not {value!r}")


def check_demo(mend, receiver):
    run = subprocess.run([mend, "demo"], env=environment(receiver, "mend-demo-check"), capture_output=True, text=True,
                         timeout=300)
    expect(run.returncode == 0, f"mend demo failed ({run.returncode}): {run.stderr[-2000:]}")
    expect(receiver.content_types <= {"application/x-protobuf"}, f"content types: {receiver.content_types}")
    spans = receiver.spans("mend-demo-check")
    expect(len(spans) > 50, f"only {len(spans)} spans exported")
    attempts = [span for span in spans
                if span.kind == Span.SPAN_KIND_CLIENT and "http.request.method" in values(span.attributes)]
    expect(attempts, "no client span with http.request.method")
    for span in attempts:
        types = kinds(span.attributes)
        for key, kind in [("http.request.method", "string_value"), ("server.address", "string_value"),
                          ("server.port", "int_value"), ("url.full", "string_value")]:
            expect(types.get(key) == kind, f"{span.name}: {key} is {types.get(key)}, not {kind}")
        attributes = values(span.attributes)
        if "http.response.status_code" in attributes:
            expect(types["http.response.status_code"] == "int_value", f"{span.name}: the status is not an int")
        url = attributes["url.full"]
        for name, secret in re.findall(r"[?&](access_token|code|client_secret|input_token)=([^&]*)", url):
            expect(secret == "REDACTED", f"{span.name}: url.full carries {name}={secret[:6]}…")
        if "error.type" in attributes:
            expect(CODE.match(attributes["error.type"]) or attributes["error.type"].isdigit(),
                   f"error.type {attributes['error.type']!r} is neither a Mend code nor a status")
            expect(span.status.code == Status.STATUS_CODE_ERROR, f"{span.name}: a failed attempt is not an error")
    resent = [span for span in attempts if "http.request.resend_count" in values(span.attributes)]
    expect(resent, "no attempt carries http.request.resend_count")
    expect(all(kinds(span.attributes)["http.request.resend_count"] == "int_value" and
               values(span.attributes)["http.request.resend_count"] >= 1 for span in resent),
           "http.request.resend_count must be an int of at least 1")
    codes = {values(span.attributes).get("error.type") for span in attempts}
    for expected in ["graph/190/463", "http/503", "graph/4"]:
        expect(expected in codes, f"no attempt failed with {expected}: {sorted(c for c in codes if c)}")

    servers = [span for span in spans if span.kind == Span.SPAN_KIND_SERVER]
    expect(servers, "no server span")
    by_id = {span.span_id: span for span in spans}
    for span in servers:
        attributes = values(span.attributes)
        if "http.route" in attributes:
            expect(span.name == f"{attributes['http.request.method']} {attributes['http.route']}",
                   f"server span {span.name!r} is not named by its route")
        expect(kinds(span.attributes).get("http.response.status_code") == "int_value", f"{span.name}: no int status")
    login = [span for span in servers if span.name == "POST /v1/login/code"]
    expect(login, "no server span for POST /v1/login/code")
    parent = by_id.get(login[0].parent_span_id)
    expect(parent is not None and parent.kind == Span.SPAN_KIND_CLIENT and parent.trace_id == login[0].trace_id,
           "the server's login span does not continue the app's attempt")
    statements = [span for span in spans if "db.system.name" in values(span.attributes)]
    expect(statements and all(values(span.attributes)["db.system.name"] == "sqlite" for span in statements),
           "no SQL statement spans (db.system.name sqlite)")
    waits = [event for span in spans for event in span.events if event.name == "mend.wait"]
    expect(waits, "no mend.wait event")
    for event in waits:
        types = kinds(event.attributes)
        expect(types.get("mend.wait.reason") == "string_value" and types.get("mend.wait.duration") == "double_value",
               f"mend.wait attributes: {types}")
    renewals = [span for span in spans if span.name == "mend.reauthenticate"]
    expect(renewals, "no mend.reauthenticate span")

    metrics = {metric.name: metric for metric in receiver.metric_list("mend-demo-check")}
    duration = metrics.get("http.client.request.duration")
    expect(duration is not None, f"no http.client.request.duration among {sorted(metrics)}")
    expect(duration.unit == "s", f"http.client.request.duration unit {duration.unit!r}")
    expect(duration.WhichOneof("data") == "histogram", "http.client.request.duration is not a histogram")
    points = duration.histogram.data_points
    expect(points and all("http.request.method" in values(point.attributes) for point in points),
           "duration points without http.request.method")
    expect(any(values(point.attributes).get("error.type") == "http/503" for point in points),
           "no duration point with error.type http/503")
    expect(list(points[0].explicit_bounds)[:3] == [0.005, 0.01, 0.025],
           f"not the advised buckets: {list(points[0].explicit_bounds)}")
    for name in ["http.client.active_requests", "mend.client.retries", "mend.client.reauthentications"]:
        expect(name in metrics, f"no {name} among {sorted(metrics)}")

    # The conventions' registry, types and kinds; GraphQL and REST spans named as their conventions say.
    check_names(expect, spans, metrics.values())
    check_types(expect, spans, metrics.values(), kinds)
    internal = [span for span in spans if span.kind == Span.SPAN_KIND_INTERNAL]
    graphql = [span for span in internal if "graphql.operation.type" in values(span.attributes)]
    expect(graphql, "no span with graphql.operation.type")
    for span in graphql:
        attributes = values(span.attributes)
        name = " ".join(filter(None, [attributes["graphql.operation.type"], attributes.get("graphql.operation.name")]))
        expect(span.name == name, f"GraphQL span {span.name!r} is not named {name!r}")
    rest = [span for span in internal if span.name.startswith("PUT ") and "url.template" in values(span.attributes)]
    expect(rest and all(span.name == "PUT " + values(span.attributes)["url.template"] for span in rest),
           f"no REST span named by its url.template: {sorted({s.name for s in internal})[:20]}")
    check_headers(receiver)


def start_server(binary, emulator, scratch, receiver):
    key = subprocess.run([binary, "generate-key"], capture_output=True, text=True, check=True).stdout.split()[-1]
    env = dict(environment(receiver, "mend-server"), MEND_HOST="127.0.0.1", MEND_PORT="0", MEND_APP_ID=APP_ID,
               MEND_APP_SECRET=APP_SECRET, MEND_GRAPH_URL=emulator.base_url,
               MEND_REDIRECT_URIS="http://127.0.0.1:8765/callback", MEND_SIGNING_KEYS=key,
               DATABASE_URL="sqlite://" + os.path.join(scratch, "otlp.sqlite"))
    return start_mend_server(binary, env)


def check_server(mend, mend_server, scratch, receiver):
    with Emulator(mend) as emulator:
        process, server = start_server(mend_server, emulator, scratch, receiver)
        try:
            refused = requests.get(f"{server}/v1/session", timeout=10)
            expect(refused.status_code == 401, f"GET /v1/session without a token: {refused.status_code}")
            reference = refused.json()["error"]["referenceId"]
            trace_id = secrets.token_hex(16)
            parent_id = secrets.token_hex(8)
            joined = requests.get(f"{server}/v1/session", timeout=10,
                                  headers={"traceparent": f"00-{trace_id}-{parent_id}-01"})
            expect(joined.status_code == 401, f"the second request: {joined.status_code}")
            unmatched = requests.get(f"{server}/nowhere/42", timeout=10)
            expect(unmatched.status_code == 404, f"GET /nowhere/42: {unmatched.status_code}")
        finally:
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=30)
    spans = [span for span in receiver.spans("mend-server") if span.kind == Span.SPAN_KIND_SERVER]
    expect(len(spans) >= 2, f"mend-server exported {len(spans)} server spans")
    first = next((span for span in spans if span.trace_id.hex() == refused.headers.get("X-Request-Id")), None)
    expect(first is not None, "no server span whose trace id is the refused request's X-Request-Id "
                              f"({refused.headers.get('X-Request-Id')})")
    expect(reference == first.trace_id.hex(), f"the error body's reference id {reference!r} is not the trace id")
    attributes = values(first.attributes)
    expect(first.name == "GET /v1/session" and attributes.get("http.route") == "/v1/session", f"name {first.name!r}")
    expect(attributes.get("http.response.status_code") == 401, f"status {attributes.get('http.response.status_code')}")
    expect(attributes.get("error.type") == "session/3", f"error.type {attributes.get('error.type')!r}")
    expect(first.status.code != Status.STATUS_CODE_ERROR, "a 401 is an error on a server span")
    second = next((span for span in spans if span.trace_id.hex() == trace_id), None)
    expect(second is not None, "the traceparent's trace has no server span")
    expect(second.parent_span_id.hex() == parent_id, "the server span's parent is not the traceparent's")
    metrics = {metric.name: metric for metric in receiver.metric_list("mend-server")}
    duration = metrics.get("http.server.request.duration")
    expect(duration is not None and duration.unit == "s", f"no http.server.request.duration (s) in {sorted(metrics)}")
    routes = {values(point.attributes).get("http.route") for point in duration.histogram.data_points}
    expect("/v1/session" in routes, f"http.server.request.duration routes: {routes}")
    # A request no route matched: named by its method alone, no http.route on its span or its point.
    nowhere = next((span for span in spans if span.trace_id.hex() == unmatched.headers.get("X-Request-Id")), None)
    expect(nowhere is not None, "no server span for GET /nowhere/42")
    expect(nowhere.name == "GET" and "http.route" not in values(nowhere.attributes),
           f"the unmatched request's span is {nowhere.name!r} with {values(nowhere.attributes).get('http.route')!r}")
    expect(all(values(point.attributes).get("http.route") != "NotFound" for point in duration.histogram.data_points),
           f"a histogram point with http.route NotFound: {routes}")
    expect(any(values(point.attributes).get("http.response.status_code") == "404"
               and "http.route" not in values(point.attributes) for point in duration.histogram.data_points),
           "no 404 point without http.route")
    everything = receiver.spans("mend-server")
    check_names(expect, everything, metrics.values())
    check_types(expect, everything, metrics.values(), kinds)
    check_headers(receiver)


def main():
    mend, mend_server, scratch = sys.argv[1], sys.argv[2], sys.argv[3]
    os.makedirs(scratch, exist_ok=True)
    results = Results()
    results.run("mend demo's traces and metrics decode with opentelemetry-proto, to the conventions",
                check_demo, mend, Receiver())
    results.run("mend-server continues a W3C traceparent; a refusal's reference id is its trace id",
                check_server, mend, mend_server, scratch, Receiver())
    return results.finish("OTLP export")


if __name__ == "__main__":
    sys.exit(main())
