"""CoreCallGate: a bounded number of core calls in flight per worker; the surplus is answered 503 at once.

Without a bound every request the gateway accepts becomes a core call at once, the core runs them all
concurrently, and each waits behind all the others: under twice the sustainable rate the latency of
every request grows for as long as the overload lasts and fewer complete than at the sustainable rate.
With it, at most `limit` calls are in the core; a request waits in a short first-come first-served line
(at most `queue` of them, each at most `wait` seconds) for a free slot, and past either bound it is
answered 503 `service_unavailable` with `Retry-After` before any core call of it is made. A shed request
did nothing, so retrying it — with the same Idempotency-Key or none — is safe.

While both the slots and the line are full, `turn_away_when_full` answers a new request's 503 as it
arrives, before its credential check and rate-limit round trip: under a sustained overload most shed
requests cost the gateway little more than parsing them, which leaves the CPU to the admitted ones.

The bound is per request, not per call: once a request's first call is admitted, the request's later
calls (a key looked up, then the operation) take a slot without waiting, so a request is never shed half
way through. Health checks (`core_is_serving`) do not go through the gate, and /healthz and /metrics
are never turned away.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import AsyncIterator
from contextvars import ContextVar

from sanic import Request
from sanic.response import HTTPResponse

from http_gateway.edge.errors import ApiError, error_response, overloaded_error
from http_gateway.observability.metrics import SHED_REQUESTS

# The request id whose call was last admitted in this task: its later calls are not shed. An id, not a
# flag, because Sanic serves the requests of one keep-alive connection one after another in one task.
_admitted: ContextVar[str | None] = ContextVar("core_call_admitted", default=None)


# Operational routes answer whatever the load: a load balancer must see the gateway alive, and an
# operator must be able to scrape what the overload looks like.
NEVER_TURNED_AWAY = frozenset({"/healthz", "/metrics"})


def overloaded(where: str) -> ApiError:
    """The answer to a shed request (`where`: the gateway or the core shed it), counted for /metrics."""
    SHED_REQUESTS.labels(where).inc()
    return overloaded_error()


class CoreCallGate:
    """`limit` calls in flight (0: no bound); `queue` requests waiting at most `wait` seconds for one."""

    def __init__(self, limit: int, queue: int, wait: float) -> None:
        self.limit = limit
        self.queue = queue
        self.wait = wait
        self.in_flight = 0
        self._waiters: deque[asyncio.Future[None]] = deque()

    def full(self) -> bool:
        """Every slot taken and the line full: a new request would be shed anyway."""
        return 0 < self.limit <= self.in_flight and len(self._waiters) >= self.queue

    @contextlib.asynccontextmanager
    async def slot(self, request_id: str) -> AsyncIterator[None]:
        """Hold one slot for a call of request `request_id`; raises the 503 ApiError when it is shed."""
        if self.limit > 0:
            if _admitted.get() == request_id or (self.in_flight < self.limit and not self._waiters):
                self.in_flight += 1
            else:
                await self._wait_for_slot()
            _admitted.set(request_id)
        try:
            yield
        finally:
            if self.limit > 0:
                self._release()

    async def _wait_for_slot(self) -> None:
        """In line behind the requests already waiting; the slot is handed over by `_release`."""
        if len(self._waiters) >= self.queue or self.wait <= 0:
            raise overloaded("gateway")
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        try:
            async with asyncio.timeout(self.wait):
                await waiter
        except TimeoutError:
            if waiter.done() and not waiter.cancelled():  # handed a slot as the wait ran out: take it
                return
            raise overloaded("gateway") from None
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():  # the client left holding a handed-over slot
                self._release()
            raise
        finally:
            with contextlib.suppress(ValueError):
                self._waiters.remove(waiter)

    def _release(self) -> None:
        """A finished call's slot goes to the first request still waiting, else back to the pool."""
        while self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_result(None)  # the slot moves over: in_flight stays the same
                return
        self.in_flight -= 1


async def turn_away_when_full(request: Request) -> HTTPResponse | None:
    """Request middleware: the 503 of a request that the gate would shed, before any work on it (returned,
    not raised: Sanic's exception path costs a shed request more than the answer itself)."""
    gate: CoreCallGate | None = getattr(request.app.ctx, "core_gate", None)
    if gate is not None and gate.full() and request.path not in NEVER_TURNED_AWAY:
        return error_response(request, overloaded("gateway"))
    return None
