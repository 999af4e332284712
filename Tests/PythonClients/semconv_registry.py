"""OpenTelemetry's semantic-conventions registry, from PyPI's `opentelemetry-semantic-conventions` (a package nobody
here wrote): every attribute name and metric name it defines, stable and incubating, read from its modules.

`check_names` fails a run whose spans, events or metric points carry an attribute, or whose metrics a name, that the
registry does not define, unless it is Mend's own (`mend.` or, for the Prometheus-named series mend-server also
exports, `mend_`). `check_types` holds the conventions' types for the attributes Mend sets, and the documented
deviations of metric attributes (docs/telemetry.md, "Where the conventions cannot be followed").
"""
import importlib
import os

import opentelemetry.semconv as semconv

# The conventions' attribute types (the registry's YAML, which the Python package does not carry): the ones Mend sets.
ATTRIBUTE_TYPES = {
    "http.request.method": "string_value", "http.request.method_original": "string_value",
    "http.response.status_code": "int_value", "http.request.resend_count": "int_value",
    "http.route": "string_value", "server.address": "string_value", "server.port": "int_value",
    "url.full": "string_value", "url.scheme": "string_value", "url.template": "string_value",
    "url.path": "string_value", "error.type": "string_value", "network.protocol.version": "string_value",
    "graphql.operation.type": "string_value", "graphql.operation.name": "string_value",
    "db.system.name": "string_value", "db.operation.name": "string_value", "db.query.summary": "string_value",
    "db.namespace": "string_value", "db.collection.name": "string_value", "exception.type": "string_value",
    "exception.message": "string_value",
}
# swift-metrics dimensions are strings: on metric points these int attributes are strings (docs/telemetry.md).
METRIC_STRING_DEVIATIONS = {"server.port", "http.response.status_code"}
# What kind of data each metric of the conventions Mend exports is. `http.client.active_requests` is an
# UpDownCounter in the conventions; swift-otel 1.6 exports swift-metrics' Meter as a Gauge (docs/telemetry.md).
METRIC_KINDS = {
    "http.client.request.duration": "histogram", "http.server.request.duration": "histogram",
    "http.client.active_requests": "gauge",
}


def registry():
    """(attribute names, metric names) the installed registry defines."""
    attributes, metrics = set(), set()
    root = semconv.__path__[0]
    for folder, kind in [("attributes", "attributes"), ("metrics", "metrics"), ("_incubating/attributes", "attributes"),
                         ("_incubating/metrics", "metrics")]:
        path = os.path.join(root, folder)
        if not os.path.isdir(path):
            continue
        for name in sorted(os.listdir(path)):
            if not name.endswith(".py") or name.startswith("__"):
                continue
            module = importlib.import_module(f"opentelemetry.semconv.{folder.replace('/', '.')}.{name[:-3]}")
            for constant in dir(module):
                value = getattr(module, constant)
                if constant.isupper() and isinstance(value, str) and "." in value and " " not in value:
                    (attributes if kind == "attributes" else metrics).add(value)
    return attributes, metrics


def is_mends(name):
    return name.startswith("mend.") or name.startswith("mend_")


def check_names(expect, spans, metrics):
    """Every attribute and metric name is the registry's or Mend's; `expect(condition, message)` fails the check."""
    attributes, metric_names = registry()
    expect(len(attributes) > 500 and "http.route" in attributes and "graphql.operation.name" in attributes,
           f"the registry holds only {len(attributes)} attributes")
    # The positive control: a name no convention defines is found.
    expect(not ("http.response.status" in attributes), "the registry check cannot fail")
    unknown = set()
    for span in spans:
        for attribute in span.attributes:
            unknown.add(attribute.key)
        for event in span.events:
            for attribute in event.attributes:
                unknown.add(attribute.key)
    for metric in metrics:
        if metric.name not in metric_names and not is_mends(metric.name):
            unknown.add(f"metric {metric.name}")
        for point in points(metric):
            for attribute in point.attributes:
                unknown.add(attribute.key)
    unknown = {name for name in unknown if name not in attributes and not is_mends(name)}
    expect(not unknown, f"names the conventions' registry does not define: {sorted(unknown)}")


def points(metric):
    data = metric.WhichOneof("data")
    return list(getattr(metric, data).data_points) if data else []


def check_types(expect, spans, metrics, kinds):
    """Attribute types on spans and metric points, and the metrics' kinds."""
    for span in spans:
        for key, kind in kinds(span.attributes).items():
            if key in ATTRIBUTE_TYPES:
                expect(kind == ATTRIBUTE_TYPES[key], f"span {span.name!r}: {key} is {kind}, not {ATTRIBUTE_TYPES[key]}")
    for metric in metrics:
        data = metric.WhichOneof("data")
        if metric.name in METRIC_KINDS:
            expect(data == METRIC_KINDS[metric.name], f"{metric.name} is a {data}, not a {METRIC_KINDS[metric.name]}")
        if data == "sum":
            expect(metric.sum.is_monotonic, f"{metric.name}: a non-monotonic sum Mend does not export")
        for point in points(metric):
            for key, kind in kinds(point.attributes).items():
                expected = "string_value" if key in METRIC_STRING_DEVIATIONS else ATTRIBUTE_TYPES.get(key)
                if expected:
                    expect(kind == expected, f"{metric.name}: {key} is {kind}, not {expected}")
