"""WebhookDispatcher: claims due deliveries, signs and sends them with bounded concurrency, records each.

Safety with several cores: a claim leases rows with `FOR UPDATE SKIP LOCKED` and commits at once (the
kernel's job claim on the row: `claimed_until`, `claimed_by`, `claim_token`), then the POST happens
outside any transaction, then the attempt is recorded in its own transaction, fenced by the claim token.
The lease is longer than the whole attempt (DNS + connect + answer ≤ the 10 s timeout), so an (event,
endpoint) pair is in flight at one worker at a time; a worker that dies mid-attempt leaves a claim that
lapses with its heartbeat, and another worker retries the pair (deliveries are at-least-once; receivers
deduplicate by the event id).

A receiver can slow nobody else down: every attempt is bounded by the timeout, at most
`concurrency` attempts run per process, at most `per_endpoint` of them for one endpoint, and at most
`per_merchant` for one merchant's endpoints together. The endpoint's and the merchant's quotas count
POSTs under way, what a receiver holds: once answered, an attempt gives them back while it is recorded
(its row stays leased until then, and it keeps one of the `concurrency` slots), so one endpoint's next
POSTs do not wait for the last ones' record statement. Slots are shared round-robin across merchants
(the merchant holding the fewest is served first, not the oldest delivery), and the last `reserve` free
slots only ever go to a merchant with nothing in flight here: however many accounts point endpoints at
silent receivers, another merchant's event finds a free slot at once (DESIGN §10.9). An endpoint that
keeps timing out is paused with back-off (webhook_pause.py), so silent receivers stop holding slots.

A claim takes up to a quota's worth of an endpoint's rows beyond its quota ("ahead"): they wait here,
leased, and the moment one of the endpoint's POSTs is answered the next one starts, without waiting for a
claim. Without them an endpoint's POSTs each waited for a wake-up, the gather and a claim statement; on two
busy cores that capped one endpoint at about 400 deliveries a second whatever the CPU left (BENCHMARKS.md,
"Speed, round 7"). A row waits for at most one attempt of the one ahead of it, so this is only done when
the lease covers three attempts (its wait, its own, its record); rows still waiting at shutdown keep their
leases, like the attempts cut off then. The quotas still count only POSTs under way, and rows claimed
ahead take none of the `concurrency` slots (`_free`).

Deliveries get a bounded share of the core, so they cannot starve the request path that shares its event
loop: at most `concurrency` sends at once, and at most `starts_per_turn` attempts started per turn of the
loop (requests ready meanwhile run between two groups). Each attempt costs little beyond its POST: a
wake-up waits `gather` seconds so the deliveries committed meanwhile are one claim, the records of the
attempts finishing together are one statement (attempt_recorder.py), and the sender keeps connections
alive per endpoint and checked address.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections import Counter, deque
from datetime import timedelta

from core_server.kernel.application.clocks import merchant_now
from core_server.kernel.application.ports import Clocks
from core_server.kernel.domain.errors import ParameterInvalid
from core_server.metrics import WEBHOOK_ATTEMPTS
from core_server.task_stop import cancel_and_wait
from core_server.webhooks.application.attempt_recorder import AttemptRecorder
from core_server.webhooks.application.ports import (
    AttemptRecord,
    ClaimedDelivery,
    DeliveryQueue,
    HostResolver,
    SecretSealer,
    SendResult,
    WakeupSource,
    WebhookSender,
)
from core_server.webhooks.domain.events import event_body
from core_server.webhooks.domain.webhook_delivery import DeliveryAttempt
from core_server.webhooks.domain.webhook_schedule import (
    DELIVERY_TIMEOUT_SECONDS,
    is_success,
    next_attempt_after_failure,
)
from core_server.webhooks.domain.webhook_signature import HEADER as SIGNATURE_HEADER
from core_server.webhooks.domain.webhook_signature import signature_header
from core_server.webhooks.domain.webhook_url import parsed_webhook_url, refusal_reason

logger = logging.getLogger(__name__)

SHUTDOWN_GRACE_SECONDS = 3.0
ANNOUNCE_INTERVAL_SECONDS = 1.0
STARTS_PER_TURN = 4
"""WEBHOOK_STARTS_PER_TURN's default: attempts started per turn of the event loop."""
GATHER_SECONDS = 0.005
"""WEBHOOK_GATHER_SECONDS' default: how long a wake-up waits before it claims, and a finished attempt
before it is recorded, so the commits and the answers of those few ms go in one statement each."""


class WebhookDispatcher:
    def __init__(
        self,
        queue: DeliveryQueue,
        sender: WebhookSender,
        resolver: HostResolver,
        sealer: SecretSealer,
        clocks: Clocks,
        wakeups: WakeupSource | None = None,
        *,
        concurrency: int = 32,
        per_endpoint: int = 8,
        per_merchant: int = 16,
        reserve: int | None = None,
        timeout: float = DELIVERY_TIMEOUT_SECONDS,
        lease: timedelta = timedelta(seconds=60),
        poll_interval: float = 5.0,
        allow_private_targets: bool = False,
        starts_per_turn: int = STARTS_PER_TURN,
        gather: float = GATHER_SECONDS,
    ) -> None:
        if lease.total_seconds() <= timeout:
            raise ValueError("the claim lease must outlast an attempt, or two workers could send one pair")
        self._queue = queue
        self._recorder = AttemptRecorder(queue.record, gather=gather)
        self._gather = gather
        self._starts_per_turn = max(1, starts_per_turn)
        self._sender = sender
        self._resolver = resolver
        self._sealer = sealer
        self._clocks = clocks
        self._wakeups = wakeups
        self._concurrency = concurrency
        self._per_endpoint = per_endpoint
        self._per_merchant = per_merchant
        # WEBHOOK_RESERVED_SLOTS, by default a quarter of the slots; never more than the slots less one,
        # so a merchant alone can always be served.
        self._reserve = max(0, min(concurrency // 4 if reserve is None else reserve, concurrency - 1))
        self._timeout = timeout
        self._lease = lease
        self.poll_interval = poll_interval
        self._allow_private = allow_private_targets  # WEBHOOK_ALLOW_PRIVATE_TARGETS, checked on every attempt
        # Attempts whose POST is under way in this process: delivery id -> (endpoint id, merchant id).
        # Only these count against an endpoint's and a merchant's quota: they are what a receiver sees.
        self._inflight: dict[str, tuple[str, str]] = {}
        # Claimed ahead of their endpoint's quota, in claim order (see the module docstring): an endpoint
        # has rows here only while its quota (or every slot) is full; each answered POST starts the next
        # one, and each written record if it was the slot that lacked.
        self._ahead_depth = per_endpoint if lease.total_seconds() >= 3 * timeout else 0
        self._ahead: dict[str, deque[ClaimedDelivery]] = {}
        # Attempts answered whose record is not written yet. Each still holds one of the `concurrency`
        # slots (and its row's lease, so no claim takes the pair again), not its endpoint's quota: the
        # next POST to that endpoint starts while the record of the last one is written.
        self._recording = 0
        self._tasks: set[asyncio.Task[None]] = set()
        self._wake = asyncio.Event()
        # The last claim stopped at the free slots or at a per-endpoint or per-merchant cap: rows may be
        # due that only a finished attempt makes room for. Otherwise a finished attempt claims nothing
        # new (new rows come with their NOTIFY), so it does not wake the loop for a claim that costs a
        # query and finds nothing.
        self._room_bound = False
        self.attempts_made = 0
        self._announced_at = float("-inf")

    @property
    def record_statements(self) -> int:
        """Statements that recorded attempts so far (several attempts each under load)."""
        return self._recorder.statements

    async def run_once(self) -> int:
        """Claims what fits into the free slots (none ahead), makes those attempts and records them;
        returns how many."""
        claimed, _ = await self._claim(ahead=0)
        await asyncio.gather(*(self._deliver(c) for c in claimed))
        return len(claimed)

    async def drain(self) -> int:
        """run_once until nothing is due (tests drive time with a settable clock instead of sleeping)."""
        total = 0
        while made := await self.run_once():
            total += made
        return total

    async def run_forever(self) -> None:
        if self._wakeups is not None:
            await self._wakeups.start(self._wake.set)
        try:
            while True:
                # Cleared before the claim: a NOTIFY or a finished attempt during the claim wakes us again.
                self._wake.clear()
                free = self._free()
                # Until the claim says otherwise: an attempt finishing during the claim frees room that
                # the claim's caps, counted before it, did not see.
                self._room_bound = True
                claimed: list[ClaimedDelivery] = []
                taken = 0
                if free > 0:
                    try:
                        claimed, taken = await self._claim(ahead=self._ahead_depth)
                    except asyncio.CancelledError:
                        raise
                    except Exception:  # noqa: BLE001 - the database may be down; poll again later
                        logger.exception("claiming webhook deliveries failed")
                for started, delivery in enumerate(claimed, 1):
                    self._launch(delivery)
                    if started % self._starts_per_turn == 0:
                        # The loop's other work (requests) runs before the next group starts.
                        await asyncio.sleep(0)
                if free > 0 and taken == free:
                    continue  # every free slot was filled: more may be due right now
                # Sleeps until a NOTIFY, a finished attempt that frees room the last claim lacked (a slot,
                # an endpoint's or a merchant's quota) or that a resend re-queued, or the poll.
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), self.poll_interval)
                    if self._gather > 0:
                        await asyncio.sleep(self._gather)  # the commits of these few ms: one claim
        finally:
            # Shutdown: attempts in flight get a moment to finish and be recorded; whatever is cut off
            # keeps its lease and is sent again by any core once the lease lapses (at-least-once).
            if self._tasks:
                await asyncio.wait(set(self._tasks), timeout=min(self._timeout, SHUTDOWN_GRACE_SECONDS))
            await cancel_and_wait(*self._tasks)
            self._ahead.clear()  # leased, not sent: they go again once their leases lapse
            if self._wakeups is not None:
                await self._wakeups.close()

    def _free(self) -> int:
        """Slots of `concurrency` not held by an attempt, whether it is sending or being recorded. Rows
        claimed ahead hold none (no socket, no task): an endpoint's backlog must not take the slots of
        another endpoint's first POST. They are bounded all the same: a claim takes them only for an
        endpoint whose quota is full, at most a quota's worth. And they start only into a free slot."""
        return self._concurrency - len(self._inflight) - self._recording

    def _launch(self, delivery: ClaimedDelivery) -> None:
        """Starts the attempt of a delivery already counted in `_inflight`."""
        task = asyncio.create_task(self._deliver(delivery), name=f"webhook-{delivery.delivery_id}")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _start_waiting(self) -> None:
        """Starts the rows claimed ahead whose endpoint has a place in its quota again, in claim order,
        while a slot is free (an answered POST frees its endpoint's place; its record, the slot)."""
        if not self._ahead:
            return
        sending = Counter(endpoint for endpoint, _ in self._inflight.values())
        for endpoint_id in list(self._ahead):
            waiting = self._ahead[endpoint_id]
            while waiting and sending[endpoint_id] < self._per_endpoint and self._free() > 0:
                delivery = waiting.popleft()
                sending[endpoint_id] += 1
                self._inflight[delivery.delivery_id] = (delivery.endpoint_id, delivery.merchant_id)
                self._launch(delivery)
            if not waiting:
                del self._ahead[endpoint_id]

    async def _claim(self, *, ahead: int) -> tuple[list[ClaimedDelivery], int]:
        """Claims into the free slots, up to `ahead` rows of an endpoint beyond its quota; returns the
        deliveries to start now (already counted in `_inflight`) and how many rows were claimed."""
        free = self._free()
        if free <= 0:
            return [], 0
        now = self._clocks.system().now()
        busy = Counter(endpoint for endpoint, _ in self._inflight.values())
        merchant_busy = Counter(merchant for _, merchant in self._inflight.values())
        for endpoint, waiting in self._ahead.items():
            busy[endpoint] += len(waiting)
            merchant_busy.update(delivery.merchant_id for delivery in waiting)
        cap = self._per_endpoint + ahead
        saturated = [endpoint for endpoint, n in busy.items() if n >= cap]
        # What the claim counts against an endpoint's quota: its POSTs under way and the rows waiting
        # (only an endpoint whose quota is full has any, so its quota is spent and `ahead` bounds them).
        # Awaits the claiming transaction; only this coroutine claims, so the slot count cannot grow (an
        # attempt finishing meanwhile only frees room, seen by the next claim).
        claimed = await self._queue.claim(
            now,
            now + self._lease,
            free,
            per_endpoint=self._per_endpoint,
            ahead=ahead,
            skip_endpoints=saturated,
            endpoint_busy={endpoint: n for endpoint, n in busy.items() if n < cap},
            per_merchant=self._per_merchant,
            merchant_busy=dict(merchant_busy),
            reserve=self._reserve,
            token=uuid.uuid4().hex,
        )
        sending = Counter(endpoint for endpoint, _ in self._inflight.values())
        start = []
        for delivery in claimed:
            if sending[delivery.endpoint_id] < self._per_endpoint:
                sending[delivery.endpoint_id] += 1
                self._inflight[delivery.delivery_id] = (delivery.endpoint_id, delivery.merchant_id)
                start.append(delivery)
            else:
                self._ahead.setdefault(delivery.endpoint_id, deque()).append(delivery)
        endpoint_held = busy + Counter(d.endpoint_id for d in claimed)
        held = merchant_busy + Counter(d.merchant_id for d in claimed)
        more_due = bool(claimed) and (
            len(claimed) >= max(free - self._reserve, 1)  # the free slots or the shared ones are taken
            or any(endpoint_held[d.endpoint_id] >= cap for d in claimed)
            or any(held[d.merchant_id] >= self._per_merchant for d in claimed)
        )
        self._room_bound = (
            more_due
            or bool(saturated)
            or any(n >= self._per_merchant for n in merchant_busy.values())
            or free - len(claimed) <= self._reserve  # the reserve is in use: a finished attempt may free room
        )
        loop_time = asyncio.get_running_loop().time()
        if more_due and loop_time - self._announced_at >= ANNOUNCE_INTERVAL_SECONDS:
            # More may be due than this process takes: wake the other cores to claim their share. Once
            # a second is enough, since a woken core keeps claiming as its own attempts finish.
            self._announced_at = loop_time
            try:
                await self._queue.announce()
            except Exception as exc:  # noqa: BLE001 - only an optimisation; the claimed rows must still go
                logger.warning("could not wake the other dispatchers: %s", type(exc).__name__)
        return start, len(claimed)

    async def _deliver(self, claimed: ClaimedDelivery) -> None:
        recording = False
        try:
            # Attempts and retries run on the merchant's time (its sandbox clock in TEST); the signature's
            # timestamp stays real time, so receivers can verify it.
            attempted_at = await merchant_now(self._clocks, claimed)
            loop = asyncio.get_running_loop()
            started = loop.time()
            try:
                result = await self._attempt(claimed)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - any failure is a failed attempt, recorded as such
                logger.exception("webhook attempt %s failed unexpectedly", claimed.delivery_id)
                result = SendResult(None, f"internal error ({type(exc).__name__})")
            # The receiver is done with it: its endpoint's and merchant's quota go to the next attempt
            # now, while this one is recorded (its row stays leased until then).
            self._inflight.pop(claimed.delivery_id, None)
            self._recording += 1
            recording = True
            self._start_waiting()
            if self._room_bound:
                self._wake.set()
            latency_ms = int((loop.time() - started) * 1000)
            self.attempts_made += 1
            succeeded = is_success(result.status_code)
            WEBHOOK_ATTEMPTS.labels("succeeded" if succeeded else "failed").inc()
            error = result.error
            if error is None and not succeeded:
                error = f"HTTP {result.status_code} is not a 2xx answer"
            attempt = DeliveryAttempt(attempted_at, result.status_code, latency_ms, error, succeeded)
            retry_at = None
            if not succeeded:
                retry_at = next_attempt_after_failure(
                    claimed.attempt_count + 1, await merchant_now(self._clocks, claimed)
                )
            # Ids, status and timing only: errors may quote the merchant's URL, which stays in their records.
            logger.info(
                "webhook %s to %s: %s in %d ms",
                claimed.event_id,
                claimed.endpoint_id,
                result.status_code or "no answer",
                latency_ms,
            )
            due_again = False
            try:
                # Awaits the batch's record statement; if it fails, the claim lapses and the pair is tried
                # again.
                due_again = await self._recorder.record(
                    AttemptRecord(claimed, attempt, retry_at, result.timed_out, self._clocks.system().now())
                )
            except Exception:  # noqa: BLE001
                logger.exception("recording webhook attempt %s failed", claimed.delivery_id)
            if due_again:
                self._wake.set()
        finally:
            if recording:
                self._recording -= 1
            else:
                self._inflight.pop(claimed.delivery_id, None)
            self._start_waiting()
            if self._room_bound:
                self._wake.set()

    async def _attempt(self, claimed: ClaimedDelivery) -> SendResult:
        try:
            target = parsed_webhook_url(claimed.url, claimed.environment, allow_private=self._allow_private)
        except ParameterInvalid as exc:
            return SendResult(None, f"endpoint URL refused: {exc.message}")
        # The secret is opened only for signing and never logged.
        secret = self._sealer.open(claimed.sealed_secret, claimed.endpoint_id)
        body = event_body(claimed.payload)
        timestamp = int(self._clocks.system().now().timestamp())
        headers = {
            "Content-Type": "application/json; charset=utf-8",
            SIGNATURE_HEADER: signature_header(body, secret, timestamp),
        }
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self._timeout
        try:
            async with asyncio.timeout_at(deadline):
                # Resolves and checks the host on every attempt (SSRF), then connects to that address.
                addresses = (
                    [target.host]
                    if target.ip_literal
                    else await self._resolver.resolve(target.host, target.port)
                )
                if not addresses:
                    # No detail: the host did not resolve, or not within WEBHOOK_DNS_TIMEOUT_SECONDS.
                    return SendResult(None, "connection failed")
                for address in addresses:
                    reason = refusal_reason(address, claimed.environment, allow_private=self._allow_private)
                    if reason:
                        return SendResult(None, f"endpoint host {reason}")
                return await self._sender.send(
                    target, addresses[0], body, headers, max(deadline - loop.time(), 0.01)
                )
        except TimeoutError:
            return SendResult(None, f"no answer within {self._timeout:g} s", timed_out=True)
