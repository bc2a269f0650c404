"""CLI sessions, their reported answers, stream messages and the TEST reset as the API shows them."""

from __future__ import annotations

import json

from connect.v1 import cli_session_pb2, test_reset_service_pb2

from http_gateway.edge.serialization import JSON, opt

SIGNATURE_HEADER = "Service-Signature"
SSE_EVENT = "webhook_event"


def stream_path(session_id: str) -> str:
    return f"/api/v1/connect/cli/sessions/{session_id}/stream"


def cli_session_json(session: cli_session_pb2.CliSession, public_base_url: str) -> JSON:
    body: JSON = {
        "id": session.id,
        "object": "cli_session",
        "device_name": session.device_name,
        "stream_url": public_base_url + stream_path(session.id),
        "created": session.created,
        "expires_at": session.expires_at,
        "livemode": False,
    }
    if session.secret:
        body["secret"] = session.secret
    return body


def cli_response_json(response: cli_session_pb2.CliResponse) -> JSON:
    """Shaped like a webhook delivery attempt (status_code, latency_ms, error, succeeded)."""
    return {
        "id": response.id,
        "object": "cli_session_response",
        "session": response.session_id,
        "event_id": response.event_id,
        "event_type": response.event_type,
        "status_code": opt(response, "status_code"),
        "succeeded": response.succeeded,
        "error": opt(response, "error"),
        "latency_ms": opt(response, "latency_ms"),
        "created": response.created,
    }


def test_reset_json(reply: test_reset_service_pb2.ResetTestDataResponse) -> JSON:
    return {"object": "test_reset", "deleted": {entry.object: entry.count for entry in reply.deleted}}


def sse_event(event: cli_session_pb2.CliEvent) -> str:
    """One Server-Sent-Events message: `id:` the event id (what Last-Event-ID resumes after), `data:` one
    line of JSON carrying the raw body as a string, so it reaches the forward target byte for byte."""
    data = {
        "id": event.id,
        "type": event.type,
        "headers": {SIGNATURE_HEADER: event.signature},
        "body": event.body,
    }
    return f"id: {event.id}\nevent: {SSE_EVENT}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"
