"""CliSessionServicer: the CliSessionService RPCs, the event stream among them (server streaming)."""

from __future__ import annotations

import contextlib
import dataclasses

import grpc
from connect.v1 import cli_session_service_pb2 as pb
from connect.v1 import cli_session_service_pb2_grpc

from core_server.developer_tools.application.cli_sessions import CliSessionService
from core_server.developer_tools.application.cli_stream import CliEventStream
from core_server.developer_tools.domain.cli_session import CliSession
from core_server.developer_tools.transport.mapping import event_to_pb, response_to_pb, session_to_pb
from core_server.kernel.application.idempotency import Claim, IdempotentRunner
from core_server.kernel.application.owner import Owner
from core_server.kernel.transport.idempotent_rpc import SecretApart, idempotent_rpc
from core_server.kernel.transport.mapping import owner_from_caller
from core_server.kernel.transport.pages import page_fields, page_query
from core_server.rpc.status import rpc

KEEPALIVE = pb.StreamCliEventsResponse()


def _created(session: CliSession) -> pb.CreateCliSessionResponse:
    return pb.CreateCliSessionResponse(cli_session=session_to_pb(session))


def _without_secret(session: CliSession) -> CliSession:
    return dataclasses.replace(session, secret=None)


class CliSessionServicer(cli_session_service_pb2_grpc.CliSessionServiceServicer):
    def __init__(self, sessions: CliSessionService, stream: CliEventStream, runner: IdempotentRunner) -> None:
        self._sessions = sessions
        self._stream = stream
        self._runner = runner

    @rpc
    async def CreateCliSession(
        self, request: pb.CreateCliSessionRequest, context: grpc.aio.ServicerContext
    ) -> pb.CreateCliSessionResponse:
        async def operation(owner: Owner, claim: Claim[CliSession] | None) -> CliSession:
            return await self._sessions.create(owner, request.device_name, claim)

        async def restore(replayed: pb.CreateCliSessionResponse) -> None:
            # Derived, not stored: the same request answers the same secret.
            session = await self._sessions.get(owner_from_caller(request.caller), replayed.cli_session.id)
            replayed.cli_session.secret = self._sessions.secret(session)

        # The stored answer never holds the secret: idempotency records are not encrypted.
        kept = SecretApart(_without_secret, restore)
        return await idempotent_rpc(
            self._runner, context, request, pb.CreateCliSessionResponse, _created, operation, secret=kept
        )

    @rpc
    async def CloseCliSession(
        self, request: pb.CloseCliSessionRequest, context: grpc.aio.ServicerContext
    ) -> pb.CloseCliSessionResponse:
        async def operation(owner: Owner, _claim: object) -> pb.CloseCliSessionResponse:
            closed = await self._sessions.close(owner, request.session_id)
            return pb.CloseCliSessionResponse(cli_session=session_to_pb(closed))

        return await idempotent_rpc(
            self._runner, context, request, pb.CloseCliSessionResponse, lambda r: r, operation
        )

    @rpc
    async def StreamCliEvents(
        self, request: pb.StreamCliEventsRequest, context: grpc.aio.ServicerContext
    ) -> None:
        owner = owner_from_caller(request.caller)
        events = self._stream.stream(owner, request.session_id, request.last_event_id, list(request.types))
        # Closed on every exit, the gateway hanging up (a cancel at `write`) included.
        async with contextlib.aclosing(events):
            async for event in events:
                message = KEEPALIVE if event is None else pb.StreamCliEventsResponse(event=event_to_pb(event))
                await context.write(message)

    @rpc
    async def RecordCliResponse(
        self, request: pb.RecordCliResponseRequest, context: grpc.aio.ServicerContext
    ) -> pb.RecordCliResponseResponse:
        async def operation(owner: Owner, _claim: object) -> pb.RecordCliResponseResponse:
            recorded = await self._sessions.record_response(
                owner,
                request.session_id,
                request.event_id,
                status_code=request.status_code if request.HasField("status_code") else None,
                error=request.error if request.HasField("error") else None,
                latency_ms=request.latency_ms if request.HasField("latency_ms") else None,
            )
            return pb.RecordCliResponseResponse(cli_response=response_to_pb(recorded))

        return await idempotent_rpc(
            self._runner, context, request, pb.RecordCliResponseResponse, lambda r: r, operation
        )

    @rpc
    async def ListCliResponses(
        self, request: pb.ListCliResponsesRequest, context: grpc.aio.ServicerContext
    ) -> pb.ListCliResponsesResponse:
        page = await self._sessions.responses(
            owner_from_caller(request.caller),
            request.session_id,
            **page_query(request),
        )
        return pb.ListCliResponsesResponse(
            cli_responses=[response_to_pb(r) for r in page.items],
            **page_fields(page, pb.ListCliResponsesResponse),
        )
