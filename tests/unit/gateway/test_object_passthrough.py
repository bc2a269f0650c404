"""The gateway answers the core's rendering as it is (docs/architecture.md "a resource's public JSON"):
a single object is the core's `object_json` byte for byte, a list is the envelope written around the
objects' texts, and no route parses an `object_json` to dump it again."""

from __future__ import annotations

import ast
from pathlib import Path

from connect.v1 import charge_service_pb2 as svc
from connect.v1 import webhook_service_pb2 as webhooks_svc

from core_server.kernel.domain.environment import Environment
from core_server.webhooks.domain.webhook_endpoint import WebhookEndpoint, WebhookEndpointStatus
from core_server.webhooks.transport.webhook_mapping import endpoint_to_pb
from tests.support.core_shapes import NOW, capture_pb, captured, charge_pb, fully_populated, new_charge

SECRET = {"Authorization": "Bearer sk_test_" + "a" * 32}
GATEWAY = Path(__file__).resolve().parents[3] / "http_gateway"
# Server-rendered pages read the objects' fields to fill their templates; they answer HTML, not the JSON.
PAGES = ("dashboard", "pages")


async def test_a_charge_is_answered_byte_for_byte_as_the_core_rendered_it(client, core):
    pb = charge_pb(fully_populated("ch_1"))
    core.charges.GetCharge.returns(svc.GetChargeResponse(charge=pb))
    r = await client.get("/v1/charges/ch_1", headers=SECRET)
    assert r.status_code == 200 and r.headers["content-type"] == "application/json"
    assert r.content == pb.object_json.encode()


async def test_the_capture_result_is_the_cores_rendering_too(client, core):
    answer = capture_pb(captured("ch_1", amount=5000, capture=3000))
    core.charges.CaptureCharge.returns(answer)
    r = await client.post("/v1/charges/ch_1/capture", headers=SECRET)
    assert r.content == answer.object_json.encode() and r.json()["amount"] == 3000


async def test_a_list_is_the_envelope_around_the_objects_texts(client, core):
    charges = [charge_pb(new_charge("ch_1")), charge_pb(fully_populated("ch_2"))]
    core.charges.ListCharges.returns(svc.ListChargesResponse(charges=charges, has_more=True, total_count=7))
    r = await client.get("/v1/charges", headers=SECRET)
    data = b",".join(c.object_json.encode() for c in charges)
    expected = b'{"object":"list","data":[' + data + b'],"has_more":true,"url":"/v1/charges","total_count":7}'
    assert r.content == expected


async def test_an_empty_list_and_a_webhook_endpoint_pass_through_as_well(client, core):
    core.webhooks.ListWebhookEndpoints.returns(webhooks_svc.ListWebhookEndpointsResponse())
    r = await client.get("/v1/webhooks", headers=SECRET)
    assert r.content == b'{"object":"list","data":[],"has_more":false,"url":"/v1/webhooks"}'
    endpoint = WebhookEndpoint(
        "we_" + "a" * 24,
        "acct_test",
        Environment.TEST,
        "https://x.example/h",
        ("*",),
        "ünïcode",
        WebhookEndpointStatus.ENABLED,
        NOW,
    )
    pb = endpoint_to_pb(endpoint)
    core.webhooks.GetWebhookEndpoint.returns(webhooks_svc.GetWebhookEndpointResponse(webhook_endpoint=pb))
    r = await client.get(f"/v1/webhooks/{endpoint.id}", headers=SECRET)
    assert r.content == pb.object_json.encode("utf-8")


def _parses_object_json(call: ast.Call) -> bool:
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    return name in {"loads", "decode", "Parse"} and "object_json" in ast.unparse(call)


def test_no_route_parses_an_object_json():
    """Routes hand `object_json` to `respond` or `list_body` as text; parsing it to dump it again is the
    cost this removed (issue 27), and the one place that could drift from the core's rendering."""
    offenders = []
    for path in sorted(GATEWAY.rglob("*.py")):
        relative = path.relative_to(GATEWAY)
        if any(part in PAGES for part in relative.parts):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        offenders += [
            f"{relative}:{node.lineno}"
            for node in ast.walk(tree)
            if isinstance(node, ast.Call) and _parses_object_json(node)
        ]
    assert offenders == []


def test_respond_takes_text_never_a_dict():
    """One answer path: `respond` sends the JSON text it is given, so no route can re-dump an object."""
    source = (GATEWAY / "pipeline" / "admission.py").read_text(encoding="utf-8")
    respond = next(
        node
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.FunctionDef) and node.name == "respond"
    )
    body_annotation = next(arg.annotation for arg in respond.args.args if arg.arg == "body")
    assert body_annotation is not None and ast.unparse(body_annotation) == "str"
    assert "json(" not in ast.unparse(respond)
