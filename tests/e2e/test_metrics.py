"""Prometheus metrics: the gateway's /metrics and the core's metrics port count real traffic."""

from __future__ import annotations

import httpx
from prometheus_client.parser import text_string_to_metric_families

from tests.e2e.api_client import API, authorized_charge, sign_up


def _samples(text: str) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def _value(samples: dict, name: str, **labels: str) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


def test_gateway_metrics_count_requests_by_route_pattern_not_raw_path(client: httpx.Client) -> None:
    merchant = sign_up(client)
    charge = authorized_charge(client, merchant, amount=1_000)
    route = "api/v1/connect/charges/<charge_id:str>"
    before = _samples(client.get("/metrics").text)
    for _ in range(3):
        assert client.get(f"{API}/charges/{charge['id']}", headers=merchant.auth).status_code == 200
    assert client.get(f"{API}/charges/ch_doesnotexist", headers=merchant.auth).status_code == 404

    response = client.get("/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    after = _samples(response.text)
    counted = {labels for (name, labels) in after if name == "gateway_http_requests_total"}
    assert not any(("route", f"/{API}/charges/{charge['id']}".lstrip("/")) in labels for labels in counted)
    ok = _value(after, "gateway_http_requests_total", route=route, method="GET", status="200")
    assert ok - _value(before, "gateway_http_requests_total", route=route, method="GET", status="200") == 3
    missing = _value(after, "gateway_http_requests_total", route=route, method="GET", status="404")
    assert (
        missing - _value(before, "gateway_http_requests_total", route=route, method="GET", status="404") == 1
    )
    assert _value(after, "gateway_http_request_duration_seconds_count", route=route, method="GET") >= 4


def test_core_metrics_port_reports_rpc_latency_actors_replays_and_webhook_queue(
    client: httpx.Client, core_metrics_url: str
) -> None:
    merchant = sign_up(client)
    charge = authorized_charge(client, merchant, amount=2_000)
    before = _samples(httpx.get(core_metrics_url).text)
    key = {"Idempotency-Key": f"metrics-{charge['id']}"}
    first = client.post(f"{API}/charges/{charge['id']}/capture", json={}, headers={**merchant.auth, **key})
    again = client.post(f"{API}/charges/{charge['id']}/capture", json={}, headers={**merchant.auth, **key})
    assert first.status_code == again.status_code == 200

    after = _samples(httpx.get(core_metrics_url).text)
    replays = _value(after, "core_idempotency_replays_total") - _value(
        before, "core_idempotency_replays_total"
    )
    assert replays >= 1
    captures = [
        value
        for (name, labels), value in after.items()
        if name == "core_rpc_duration_seconds_count"
        and ("code", "OK") in labels
        and any(k == "method" and "Capture" in v for k, v in labels)
    ]
    assert captures and sum(captures) >= 1
    assert ("core_active_actors", frozenset({("kind", "charge")})) in after
    assert ("core_webhook_queue_depth", frozenset()) in after
    assert _value(after, "core_lease_wait_seconds_count", outcome="acquired") >= 1
