"""Prometheus metrics: the gateway's /metrics and the core's metrics port count real traffic."""

from __future__ import annotations

import httpx
from prometheus_client.parser import text_string_to_metric_families

from tests.e2e.api_client import API, authorized_charge, sign_up
from tests.support.processes import RunningProcess, start_gateway


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


METRICS_TOKEN = "scrape-token-for-e2e-0123456789"


def test_metrics_answer_a_remote_peer_only_with_the_metrics_token(
    stack_env: dict[str, str], core_process: RunningProcess
) -> None:
    """DESIGN §10.9. Behind a TLS proxy the gateway trusts the forwarded client address, which lets a
    loopback test client stand for a remote peer."""
    env = {**stack_env, "BEHIND_TLS_PROXY": "1", "METRICS_TOKEN": METRICS_TOKEN}
    with start_gateway(env, [core_process.address]) as gateway, httpx.Client(base_url=gateway.base_url) as c:
        remote = {"X-Forwarded-For": "203.0.113.5"}
        refused = c.get("/metrics", headers=remote)
        assert refused.status_code == 404, refused.text
        assert refused.json()["error"]["code"] == "resource_missing"
        wrong = c.get("/metrics", headers={**remote, "Authorization": "Bearer not-the-token"})
        assert wrong.status_code == 404
        shown = c.get("/metrics", headers={**remote, "Authorization": f"Bearer {METRICS_TOKEN}"})
        assert shown.status_code == 200 and "gateway_" in shown.text, shown.text[:200]
        local = c.get("/metrics", headers={"X-Forwarded-For": "127.0.0.1"})
        assert local.status_code == 200
