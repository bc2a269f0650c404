"""`POST /invoices/{id}/void` through the Sanic app with a scripted core: what the core is asked, the
answer it renders, and the refusals it passes on (DESIGN §9)."""

from __future__ import annotations

import json

import grpc
import pytest
from connect.v1 import subscription_pb2
from connect.v1 import subscription_service_pb2 as svc

from tests.unit.gateway.gateway_fakes import FakeStub, rpc_error

SECRET = {"Authorization": "Bearer sk_test_" + "a" * 32}
INVOICE = "si_" + "c" * 32
VOIDED = subscription_pb2.Invoice(
    id=INVOICE, object_json=json.dumps({"id": INVOICE, "object": "invoice", "status": "VOID"})
)


@pytest.fixture
def subs(core):
    core.subscriptions = FakeStub()
    core.subscriptions.VoidInvoice.by_default(svc.VoidInvoiceResponse(invoice=VOIDED))
    return core.subscriptions


def _error(r) -> tuple[int, str | None, str | None]:
    error = r.json()["error"]
    return r.status_code, error["code"], error["param"]


@pytest.mark.parametrize("prefix", ["/api/v1/connect", "/connect/v1", "/v1"])
async def test_void_answers_200_with_the_core_invoice_under_every_address(client, subs, prefix):
    headers = {**SECRET, "Idempotency-Key": "void-1"}
    r = await client.post(f"{prefix}/invoices/{INVOICE}/void", headers=headers)
    assert r.status_code == 200
    assert r.json() == json.loads(VOIDED.object_json)
    sent = subs.VoidInvoice.last
    assert (sent.invoice_id, sent.idempotency.key) == (INVOICE, "void-1")
    assert sent.caller.merchant_id


async def test_void_takes_no_parameters(client, subs):
    r = await client.post(f"/v1/invoices/{INVOICE}/void", json={"reason": "x"}, headers=SECRET)
    assert _error(r) == (400, "parameter_invalid", "reason")
    r = await client.post(f"/v1/invoices/{INVOICE}/void?force=true", headers=SECRET)
    assert _error(r) == (400, "parameter_invalid", "force")
    assert not subs.VoidInvoice.calls


async def test_a_replayed_void_says_so(client, subs):
    subs.VoidInvoice.returns(svc.VoidInvoiceResponse(invoice=VOIDED), replayed=True)
    r = await client.post(f"/v1/invoices/{INVOICE}/void", headers={**SECRET, "Idempotency-Key": "k"})
    assert r.status_code == 200 and r.headers["Idempotent-Replayed"] == "true"


async def test_a_paid_invoice_is_invalid_state(client, subs):
    subs.VoidInvoice.raises(
        rpc_error(
            grpc.StatusCode.INVALID_ARGUMENT,
            "Only a DRAFT or OPEN invoice can be voided.",
            reason="INVALID_STATE",
            type="invalid_request_error",
        )
    )
    r = await client.post(f"/v1/invoices/{INVOICE}/void", headers=SECRET)
    assert r.status_code == 400 and r.json()["error"]["code"] == "invalid_state"


async def test_an_unknown_invoice_is_404(client, subs):
    subs.VoidInvoice.raises(
        rpc_error(
            grpc.StatusCode.NOT_FOUND,
            f"No such invoice: '{INVOICE}'.",
            reason="RESOURCE_MISSING",
            type="resource_not_found",
            param="id",
        )
    )
    r = await client.post(f"/v1/invoices/{INVOICE}/void", headers=SECRET)
    assert r.status_code == 404 and r.json()["error"]["code"] == "resource_missing"
