"""Developer tools domain ⇄ protobuf: the only module of the context that knows both."""

from __future__ import annotations

from connect.v1 import cli_session_pb2, test_reset_service_pb2

from core_server.developer_tools.application.cli_stream import SignedEvent
from core_server.developer_tools.domain.cli_response import CliResponse
from core_server.developer_tools.domain.cli_session import CliSession
from core_server.developer_tools.domain.sandbox_reset import TestReset
from core_server.kernel.domain.public_json import unix_seconds


def session_to_pb(session: CliSession) -> cli_session_pb2.CliSession:
    return cli_session_pb2.CliSession(
        id=session.id,
        device_name=session.device_name,
        secret=session.secret or "",
        created=unix_seconds(session.created),
        expires_at=unix_seconds(session.expires_at),
    )


def event_to_pb(event: SignedEvent) -> cli_session_pb2.CliEvent:
    return cli_session_pb2.CliEvent(
        id=event.id, type=event.type, body=event.body.decode("utf-8"), signature=event.signature
    )


def response_to_pb(response: CliResponse) -> cli_session_pb2.CliResponse:
    message = cli_session_pb2.CliResponse(
        id=response.id,
        session_id=response.session_id,
        event_id=response.event_id,
        event_type=response.event_type,
        succeeded=response.succeeded,
        created=unix_seconds(response.created),
    )
    if response.status_code is not None:
        message.status_code = response.status_code
    if response.error is not None:
        message.error = response.error
    if response.latency_ms is not None:
        message.latency_ms = response.latency_ms
    return message


def reset_to_pb(reset: TestReset) -> test_reset_service_pb2.ResetTestDataResponse:
    return test_reset_service_pb2.ResetTestDataResponse(
        deleted=[test_reset_service_pb2.DeletedCount(object=name, count=n) for name, n in reset.deleted]
    )
