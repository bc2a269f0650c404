"""observe_request keeps each label set's child, and counts into the registry's series as before."""

from __future__ import annotations

from http_gateway.observability.metrics import REGISTRY, observe_request


def _value(name: str, labels: dict[str, str]) -> float:
    value = REGISTRY.get_sample_value(name, labels)
    return value or 0.0


def test_each_request_counts_once_in_its_series():
    labels = {"route": "/probe/<id>", "method": "POST", "status": "201"}
    before = _value("gateway_http_requests_total", labels)
    seconds_before = _value(
        "gateway_http_request_duration_seconds_count", {"route": "/probe/<id>", "method": "POST"}
    )
    for _ in range(3):
        observe_request("/probe/<id>", "POST", 201, 0.002)
    observe_request("/probe/<id>", "POST", 409, None)
    assert _value("gateway_http_requests_total", labels) == before + 3
    assert _value("gateway_http_requests_total", {**labels, "status": "409"}) >= 1
    timed = {"route": "/probe/<id>", "method": "POST"}
    assert _value("gateway_http_request_duration_seconds_count", timed) == seconds_before + 3
