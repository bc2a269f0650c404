"""Charge routes end to end through the Sanic app, with a scripted core."""

from __future__ import annotations

import grpc
from connect.v1 import charge_pb2, common_pb2
from connect.v1 import charge_service_pb2 as svc

from http_gateway.pipeline.idempotency import fingerprint
from tests.support.core_shapes import (
    NOW,
    NOW_UNIX,
    authorized,
    capture_pb,
    captured,
    charge_pb,
    charge_with_id,
    dispute_pb,
    new_charge,
    refund_pb,
)
from tests.unit.gateway.gateway_fakes import rpc_error

SECRET = {"Authorization": "Bearer sk_test_" + "a" * 32}
RETURN_URL = "https://shop.example/ok"
BODY = {"amount": 5000, "currency": "usd", "returnUrl": RETURN_URL, "metadata": {"order": "42"}}


def _created(core, *, replayed: bool = False) -> None:
    core.charges.CreateCharge.returns(
        svc.CreateChargeResponse(charge=charge_with_id("ch_1")), replayed=replayed
    )


def _error(r) -> tuple[int, str | None, str | None]:
    error = r.json()["error"]
    return r.status_code, error["code"], error["param"]


async def test_create_charge_translates_the_body_and_answers_201(client, core):
    _created(core)
    r = await client.post("/api/v1/connect/charges", json=BODY, headers=SECRET)
    assert r.status_code == 201
    assert r.json()["id"] == "ch_1" and r.json()["object"] == "charge"
    sent = core.charges.CreateCharge.last
    assert (sent.caller.merchant_id, sent.caller.environment) == ("acct_test", common_pb2.ENVIRONMENT_TEST)
    assert (sent.amount, sent.currency, sent.return_url) == (5000, "usd", RETURN_URL)
    assert dict(sent.metadata) == {"order": "42"}
    assert not sent.HasField("description") and not sent.HasField("cancel_url")
    assert sent.idempotency.key == ""
    assert "Idempotent-Replayed" not in r.headers


async def test_every_response_carries_request_id_rate_limit_and_version_headers(client, core):
    _created(core)
    r = await client.post("/v1/charges", json=BODY, headers=SECRET)
    assert r.headers["Request-Id"].startswith("req_")
    assert r.headers["X-RateLimit-Limit"] == "25"
    assert r.headers["X-RateLimit-Remaining"] == "24"
    assert int(r.headers["X-RateLimit-Reset"]) > 0
    assert r.headers["Service-Version"] == "2025-06-01"
    call = core.charges.CreateCharge.calls[-1]
    assert ("x-request-id", r.headers["Request-Id"]) in call.metadata


async def test_idempotent_create_passes_the_key_on_without_an_early_check(client, core):
    """A valid body goes straight to the core, whose claim judges the key before anything runs."""
    _created(core)
    raw = b'{"amount": 5000, "currency": "usd", "return_url": "https://shop.example/ok"}'
    headers = {**SECRET, "Idempotency-Key": "order-42", "Content-Type": "application/json"}
    r = await client.post("/connect/v1/charges", content=raw, headers=headers)
    assert r.status_code == 201
    assert core.idempotency.CheckIdempotencyKey.calls == []
    passed = core.charges.CreateCharge.last.idempotency
    assert (passed.key, passed.fingerprint) == ("order-42", fingerprint("/charges", raw))


async def test_invalid_body_with_a_key_asks_the_core_about_the_key_first(client, core):
    r = await client.post("/v1/charges", json={"amount": "x"}, headers={**SECRET, "Idempotency-Key": "k9"})
    assert r.status_code == 400
    check = core.idempotency.CheckIdempotencyKey.last
    assert (check.scope, check.idempotency.key) == ("acct_test:test", "k9")
    assert core.charges.CreateCharge.calls == []


async def test_replayed_result_keeps_its_status_and_says_so(client, core):
    _created(core, replayed=True)
    r = await client.post("/v1/charges", json=BODY, headers={**SECRET, "Idempotency-Key": "k1"})
    assert r.status_code == 201
    assert r.headers["Idempotent-Replayed"] == "true"


async def test_reused_key_with_another_body_is_409_before_validation(client, core):
    core.idempotency.CheckIdempotencyKey.raises(
        rpc_error(
            grpc.StatusCode.ABORTED,
            "Keys can only be used with the same parameters.",
            reason="idempotency_key_reused",
            type="idempotency_error",
        )
    )
    headers = {**SECRET, "Idempotency-Key": "k1"}
    r = await client.post("/v1/charges", json={"amount": "not a number"}, headers=headers)
    assert r.status_code == 409
    assert r.json()["error"]["type"] == "idempotency_error"
    assert core.charges.CreateCharge.calls == []


async def test_long_idempotency_key_is_400(client, core):
    r = await client.post("/v1/charges", json=BODY, headers={**SECRET, "Idempotency-Key": "k" * 101})
    assert _error(r) == (400, "parameter_invalid", "Idempotency-Key")


async def test_validation_errors_never_reach_the_core(client, core):
    r = await client.post("/v1/charges", json={"amount": 5000, "currency": "usd"}, headers=SECRET)
    assert r.status_code == 400
    assert r.json()["error"] == {
        "type": "invalid_request_error",
        "code": "parameter_missing",
        "param": "return_url",
        "message": "Missing required parameter: return_url.",
        "doc_url": "https://api.example.test/docs/errors#parameter_missing",
    }
    assert core.charges.CreateCharge.calls == []


async def test_core_business_errors_pass_through_with_their_status(client, core):
    core.charges.CreateCharge.raises(
        rpc_error(
            grpc.StatusCode.INVALID_ARGUMENT,
            "Currency xyz is not supported.",
            reason="currency_unsupported",
            type="invalid_request_error",
            param="currency",
        )
    )
    r = await client.post("/v1/charges", json={**BODY, "currency": "xyz"}, headers=SECRET)
    assert _error(r) == (400, "currency_unsupported", "currency")
    assert r.headers["X-RateLimit-Remaining"] == "24"


async def test_get_unknown_charge_is_404_envelope(client, core):
    core.charges.GetCharge.raises(
        rpc_error(
            grpc.StatusCode.NOT_FOUND, "No such charge", reason="resource_missing", type="resource_not_found"
        )
    )
    r = await client.get("/api/v1/connect/charges/ch_x", headers=SECRET)
    assert _error(r) == (404, "resource_missing", None)
    assert core.charges.GetCharge.last.charge_id == "ch_x"


async def test_list_translates_filters_and_answers_a_list(client, core):
    charges = [charge_with_id("ch_2"), charge_with_id("ch_1")]
    page = svc.ListChargesResponse(charges=charges, has_more=True, total_count=7)
    core.charges.ListCharges.returns(page)
    query = "status=captured&limit=2&created_after=10&created_before=20&starting_after=ch_3"
    r = await client.get(f"/api/v1/connect/charges?{query}", headers=SECRET)
    assert r.status_code == 200
    body = r.json()
    assert (body["object"], body["has_more"], body["total_count"]) == ("list", True, 7)
    assert body["url"] == "/api/v1/connect/charges"
    assert [c["id"] for c in body["data"]] == ["ch_2", "ch_1"]
    sent = core.charges.ListCharges.last
    assert (sent.status, sent.limit, sent.starting_after) == (charge_pb2.CHARGE_STATUS_CAPTURED, 2, "ch_3")
    assert (sent.created_after, sent.created_before) == (10, 20)


async def test_list_without_filters_leaves_them_unset(client, core):
    core.charges.ListCharges.returns(svc.ListChargesResponse())
    r = await client.get("/v1/charges", headers=SECRET)
    empty = {"object": "list", "data": [], "has_more": False, "url": "/v1/charges", "total_count": 0}
    assert r.json() == empty
    sent = core.charges.ListCharges.last
    assert not sent.HasField("created_after") and sent.limit == 0 and sent.status == 0


async def test_list_query_errors_name_the_parameter(client, core):
    cases = [
        ("limit=abc", "limit"),
        ("limit=0", "limit"),
        ("limit=101", "limit"),
        ("limit=", "limit"),
        ("created_after=1.5", "created_after"),
        ("status=paid", "status"),
        ("colour=red", "colour"),
        ("limit=1&limit=2", "limit"),
    ]
    for query, param in cases:
        r = await client.get(f"/v1/charges?{query}", headers=SECRET)
        assert _error(r) == (400, "parameter_invalid", param), query
    assert core.charges.ListCharges.calls == []


async def test_capture_without_amount_captures_everything(client, core):
    core.charges.CaptureCharge.returns(capture_pb(captured("ch_1", amount=5000)))
    r = await client.post("/v1/charges/ch_1/capture", headers=SECRET)
    assert r.status_code == 200
    assert r.json()["amount"] == 5000 and r.json()["fee"] == 175
    assert not core.charges.CaptureCharge.last.HasField("amount")


async def test_partial_capture_sends_the_amount(client, core):
    core.charges.CaptureCharge.returns(capture_pb(new_charge("ch_1")))
    await client.post("/v1/charges/ch_1/capture", json={"amount": 0}, headers=SECRET)
    sent = core.charges.CaptureCharge.last
    assert sent.HasField("amount") and sent.amount == 0  # the core answers 0 with parameter_invalid


async def test_refund_answers_201_with_the_refund(client, core):
    charge = captured("ch_1")
    refund = charge.refund("re_1", 100, "duplicate", NOW)
    core.charges.RefundCharge.returns(
        svc.RefundChargeResponse(refund=refund_pb(refund), charge=charge_pb(charge))
    )
    body = {"amount": 100, "reason": "duplicate"}
    r = await client.post("/v1/charges/ch_1/refunds", json=body, headers=SECRET)
    assert r.status_code == 201
    assert r.json() == {
        "id": "re_1",
        "object": "refund",
        "charge": "ch_1",
        "amount": 100,
        "currency": "usd",
        "status": "succeeded",
        "reason": "duplicate",
        "created": NOW_UNIX,
    }
    assert core.charges.RefundCharge.last.reason == "duplicate"


async def test_void_answers_the_charge(client, core):
    voided = authorized("ch_1")
    voided.void(NOW)
    core.charges.VoidCharge.returns(svc.VoidChargeResponse(charge=charge_pb(voided)))
    r = await client.post("/v1/charges/ch_1/void", headers=SECRET)
    assert (r.status_code, r.json()["status"]) == (200, "voided")


async def test_dispute_helpers(client, core):
    charge = captured("ch_1", amount=5000)
    dispute = charge.open_dispute("dp_1", NOW)
    core.charges.DisputeCharge.returns(svc.DisputeChargeResponse(dispute=dispute_pb(dispute)))
    r = await client.post("/api/v1/connect/test_helpers/charges/ch_1/dispute", headers=SECRET)
    assert (r.status_code, r.json()["object"], r.json()["fee"]) == (201, "dispute", 1500)
    won = charge.close_dispute("won", NOW)
    core.charges.CloseDispute.returns(svc.CloseDisputeResponse(dispute=dispute_pb(won)))
    r = await client.post("/v1/test_helpers/disputes/dp_1/close", json={"outcome": "won"}, headers=SECRET)
    assert (r.status_code, r.json()["status"]) == (200, "won")
    assert core.charges.CloseDispute.last.outcome == "won"
    r = await client.post("/v1/test_helpers/disputes/dp_1/close", json={}, headers=SECRET)
    assert _error(r) == (400, "parameter_missing", "outcome")
