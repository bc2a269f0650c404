"""CoreCallGate: a bounded number of core calls in flight per worker; the surplus is answered 503 at once.

Without a bound every request the gateway accepts becomes a core call at once, the core runs them all
concurrently, and each waits behind all the others: under twice the sustainable rate the latency of
every request grows for as long as the overload lasts and fewer complete than at the sustainable rate.
With it, at most `limit` calls are in the core; a request waits in a short first-come first-served line
(at most `queue` of them, each at most `wait` seconds) for a free slot, and past either bound it is
answered 503 `service_unavailable` with `Retry-After` before any core call of it is made. A shed request
did nothing, so retrying it — with the same Idempotency-Key or none — is safe.

The line is for bursts, not for a sustained overload: there, every request in line would have had its
credential check and rate-limit round trip for nothing, and a line of `queue` timing out every `wait`
seconds would let through that many such requests a second. So once a waiter's budget ran out the line
closes for `closed_for` seconds: a request that finds every slot taken is shed at once. While every slot
is taken and the line is full or closed, `turn_away_when_full` answers a new request's 503 as it arrives,
before any work on it: under a sustained overload most shed requests cost the gateway little more than
parsing them, which leaves the CPU to the admitted ones.

Requests let in but not yet at their first core call (checking their key, counting their rate) are on
their way to a slot or to a place in line, and count against both until they reach their first call or
are answered (`arrived`, `slot`, `left`): a request is let in only if a slot or a place in line is left
for it once every request already on its way has had its own. Without them, a slot or a place that
looked free at arrival would be taken by the time the request got there, and the request shed after all
its work. They used to count for a fixed 0.1 s instead; on a busy machine the way from arrival to the
first call (a Redis round trip behind a lagging event loop) took longer, the count ran out early, and
under twice the sustainable rate hundreds of requests a second were let in only to be shed at the line
(BENCHMARKS.md, "Speed, round 5"). `EN_ROUTE_HORIZON` only bounds what a request that vanished without
an answer (its client cancelled it) can leave behind.

The bound is per request, not per call: once a request's first call is admitted, the request's later
calls (a key looked up, then the operation) take a slot without waiting, so a request is never shed half
way through. Health checks (`core_is_serving`) do not go through the gate, and /healthz and /metrics
are never turned away.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import deque
from collections.abc import AsyncIterator, Callable
from contextvars import ContextVar

from sanic import Request
from sanic.response import BaseHTTPResponse, HTTPResponse

from http_gateway.edge.errors import ApiError, error_response, overloaded_error
from http_gateway.observability.metrics import SHED_REQUESTS

# The request id whose call was last admitted in this task: its later calls are not shed. An id, not a
# flag, because Sanic serves the requests of one keep-alive connection one after another in one task.
_admitted: ContextVar[str | None] = ContextVar("core_call_admitted", default=None)


# Operational routes answer whatever the load: a load balancer must see the gateway alive, and an
# operator must be able to scrape what the overload looks like.
NEVER_TURNED_AWAY = frozenset({"/healthz", "/metrics"})


def overloaded(where: str) -> ApiError:
    """The answer to a shed request, counted for /metrics by where it was shed: `gateway_arrival` (turned
    away as it came in), `gateway_line` (no slot within the line's bounds) or `core` (the core refused)."""
    SHED_REQUESTS.labels(where).inc()
    return overloaded_error()


LINE_CLOSED_SECONDS = 1.0
"""How long the line stays closed after a waiter's budget ran out: the Retry-After of its answer."""
EN_ROUTE_HORIZON = 1.0
"""The longest a request let in counts as on its way when it neither reaches a core call nor is answered
(a request cancelled with its connection): ten times the way's usual length under overload."""


class CoreCallGate:
    """`limit` calls in flight (0: no bound); `queue` requests waiting at most `wait` seconds for one."""

    def __init__(
        self,
        limit: int,
        queue: int,
        wait: float,
        *,
        closed_for: float = LINE_CLOSED_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.limit = limit
        self.queue = queue
        self.wait = wait
        self.in_flight = 0
        self._waiters: deque[asyncio.Future[None]] = deque()
        self._closed_for = closed_for
        self._clock = clock
        self._line_closed_until = float("-inf")
        # Request id -> when it was let in, for each request let in and not yet at its first call or
        # answered; insertion order is arrival order (the horizon drops from the front).
        self._en_route: dict[str, float] = {}

    def full(self) -> bool:
        """Every slot and every place in line taken, counting the requests on their way to them: a new
        request would be shed anyway."""
        if self.limit <= 0:
            return False
        now = self._clock()
        horizon = now - EN_ROUTE_HORIZON
        while self._en_route:
            request_id, came = next(iter(self._en_route.items()))
            if came >= horizon:
                break
            del self._en_route[request_id]
        places = self.limit
        if self.wait > 0 and now >= self._line_closed_until:
            places += self.queue
        return self.in_flight + len(self._waiters) + len(self._en_route) >= places

    def arrived(self, request_id: str) -> None:
        """Request `request_id` was let in: it holds a slot or a place in line for itself until its first
        call, or until it is answered without one (`left`)."""
        if self.limit > 0:
            self._en_route[request_id] = self._clock()

    def left(self, request_id: str) -> None:
        """Request `request_id` was answered: if it never reached a core call, its count goes."""
        self._en_route.pop(request_id, None)

    def _line_open(self) -> bool:
        return len(self._waiters) < self.queue and self.wait > 0 and self._clock() >= self._line_closed_until

    @contextlib.asynccontextmanager
    async def slot(self, request_id: str) -> AsyncIterator[None]:
        """Hold one slot for a call of request `request_id`; raises the 503 ApiError when it is shed."""
        if self.limit > 0:
            self._en_route.pop(request_id, None)  # on its way no longer: it takes a slot or its place
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
        if not self._line_open():
            raise overloaded("gateway_line")
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        try:
            async with asyncio.timeout(self.wait):
                await waiter
        except TimeoutError:
            if waiter.done() and not waiter.cancelled():  # handed a slot as the wait ran out: take it
                return
            self._line_closed_until = self._clock() + self._closed_for  # an overload, not a burst
            raise overloaded("gateway_line") from None
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
    if gate is None or request.path in NEVER_TURNED_AWAY:
        return None
    if gate.full():
        return error_response(request, overloaded("gateway_arrival"))
    gate.arrived(request.ctx.request_id)
    return None


async def no_longer_on_its_way(request: Request, response: BaseHTTPResponse) -> None:
    """Response middleware: a request let in and answered without a core call (a 400, a 401, a cached
    answer) frees what it held for itself at arrival."""
    gate: CoreCallGate | None = getattr(request.app.ctx, "core_gate", None)
    request_id = getattr(request.ctx, "request_id", None)
    if gate is not None and request_id is not None:
        gate.left(request_id)
