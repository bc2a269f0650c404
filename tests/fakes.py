"""In-memory fakes of the core's ports, for unit tests that must run without PostgreSQL or Redis."""

from __future__ import annotations

import asyncio
import builtins
import copy
import itertools
from collections.abc import Sequence
from datetime import datetime, timedelta

from core_server.db.errors import StaleFence
from core_server.kernel.application.clocks import OffsetClock, SettableClock
from core_server.kernel.application.job_claims import JobClaim
from core_server.kernel.application.owner import Owner
from core_server.kernel.application.pagination import Page
from core_server.kernel.application.ports import Clock, FirstClaim, TurnWrite
from core_server.kernel.domain.environment import Environment
from core_server.kernel.domain.ids import IdCollision
from core_server.payments.application.ports import ChargeQuery, DayVolume, PaymentRequest
from core_server.payments.domain.charge import Charge
from core_server.payments.domain.payment import PaymentOutcome
from core_server.payments.processors.sandbox_processor import SandboxProcessor

_tokens = itertools.count(1)


class FakeLease:
    """In-memory `EntityLease`: leases built on one shared `store` dict contend like keys in Redis.

    No expiry: a test simulates a lost lease with `renew_ok = False` (or `steal()`), a busy one by
    putting another token in the store. Counters let tests assert what the actor did.
    """

    def __init__(self, key: str = "lease", *, ttl_ms: int = 300, store: dict[str, str] | None = None) -> None:
        self.key = key
        self.ttl_ms = ttl_ms
        self.store: dict[str, str] = store if store is not None else {}
        self.token = f"fake:{next(_tokens)}"
        self.renew_ok = True
        self.acquire_error: BaseException | None = None
        self.acquire_calls = 0
        self.renew_calls = 0
        self.release_calls = 0

    @property
    def held(self) -> bool:
        return self.store.get(self.key) == self.token

    def steal(self, token: str = "someone-else") -> None:
        """Model expiry followed by another owner taking the key."""
        self.store[self.key] = token

    async def acquire(self, wait_s: float) -> bool:
        self.acquire_calls += 1
        if self.acquire_error is not None:
            raise self.acquire_error
        deadline = asyncio.get_running_loop().time() + wait_s
        while True:
            if self.key not in self.store:
                self.store[self.key] = self.token
                return True
            if asyncio.get_running_loop().time() >= deadline:
                return False
            await asyncio.sleep(0.001)

    async def renew(self) -> bool:
        self.renew_calls += 1
        return self.renew_ok and self.held

    async def release(self) -> None:
        self.release_calls += 1
        if self.held:
            del self.store[self.key]


class FakeClocks:
    """In-memory `Clocks`: one `SettableClock` as real time, shifted per (merchant, environment).

    Unlike `MerchantClocks` any environment may get an offset, so a test can show that a LIVE charge
    ignores its merchant's TEST clock simply by setting the TEST offset only.
    """

    def __init__(self, start: datetime | None = None) -> None:
        self.base = SettableClock(start)
        self._offsets: dict[tuple[str, Environment], timedelta] = {}

    def set_offset(
        self, merchant_id: str, offset: timedelta, environment: Environment = Environment.TEST
    ) -> None:
        self._offsets[(merchant_id, environment)] = offset

    def offset(self, merchant_id: str, environment: Environment) -> timedelta:
        return self._offsets.get((merchant_id, environment), timedelta(0))

    async def resolve(self, merchant_id: str, environment: Environment) -> Clock:
        offset = self.offset(merchant_id, environment)
        return OffsetClock(self.base, offset) if offset else self.base

    def system(self) -> Clock:
        return self.base


class FakeChargeRepository:
    """In-memory `ChargeRepository`: id -> (charge as stored, fence token), fenced like the PostgreSQL one.

    Stored charges are deep copies without `pending_events` (the database keeps rows, the events go to
    the outbox), and every read hands out a fresh deep copy, so an actor never shares state with the
    store. `saves` lists each committed `(charge_id, write)` (with its fence in `save_fences`) and
    `inserts` each created one, so tests can look at the events and completions a turn wrote;
    `take_over` bumps a fence as another process's activation would. With `clocks`, the due-queries judge
    each charge at its merchant's time, like the SQL does with the test-clock offsets.
    """

    def __init__(self, clocks: FakeClocks | None = None) -> None:
        self.clocks = clocks
        self._rows: dict[str, tuple[Charge, int]] = {}
        self._seq: dict[str, int] = {}
        self._claimed: dict[tuple[str, str], bytes] = {}
        self.saves: builtins.list[tuple[str, TurnWrite]] = []
        self.save_fences: builtins.list[int] = []
        self.inserts: builtins.list[tuple[str, TurnWrite]] = []
        self.activations = 0

    # -- test helpers ---------------------------------------------------------------------------------

    def put(self, charge: Charge, fence: int = 0) -> None:
        """Seeds a charge as if created earlier (its pending events count as already logged)."""
        self._seq.setdefault(charge.id, len(self._seq))
        self._rows[charge.id] = (_as_stored(charge), fence)

    def take_over(self, charge_id: str) -> int:
        """Another process activated the charge: the fence moves on and any earlier owner is stale."""
        charge, fence = self._rows[charge_id]
        self._rows[charge_id] = (charge, fence + 1)
        return fence + 1

    def fence(self, charge_id: str) -> int:
        return self._rows[charge_id][1]

    def stored_response(self, scope: str, key: str) -> bytes | None:
        """The answer a `FirstClaim` stored with its create."""
        return self._claimed.get((scope, key))

    # -- ChargeRepository -----------------------------------------------------------------------------

    async def insert_new(self, charge: Charge, write: TurnWrite, claim: FirstClaim | None) -> bool:
        if claim is not None and (claim.request.scope, claim.request.key) in self._claimed:
            return False
        if charge.id in self._rows:
            raise IdCollision(charge.id)
        self.put(charge)
        if claim is not None:
            self._claimed[(claim.request.scope, claim.request.key)] = claim.response
        self.inserts.append((charge.id, write))
        return True

    async def load_for_activation(self, charge_id: str) -> tuple[Charge, int] | None:
        row = self._rows.get(charge_id)
        if row is None:
            return None
        charge, fence = row[0], row[1] + 1
        self._rows[charge_id] = (charge, fence)
        self.activations += 1
        return copy.deepcopy(charge), fence

    async def save(self, charge: Charge, fence: int, write: TurnWrite) -> None:
        row = self._rows.get(charge.id)
        if row is None or row[1] != fence:
            raise StaleFence(f"charge {charge.id}: fence {fence} is no longer current")
        self._rows[charge.id] = (_as_stored(charge), fence)
        self.saves.append((charge.id, write))
        self.save_fences.append(fence)

    async def get(self, charge_id: str) -> Charge | None:
        row = self._rows.get(charge_id)
        return copy.deepcopy(row[0]) if row is not None else None

    async def list(self, query: ChargeQuery) -> Page[Charge]:
        matching = [
            charge
            for charge, _ in self._rows.values()
            if charge.merchant_id == query.merchant_id
            and charge.environment is query.environment
            and (query.status is None or _seen(charge, query.seen_at).status is query.status)
            and (query.created_after is None or charge.created > query.created_after)
            and (query.created_before is None or charge.created < query.created_before)
            and (
                query.customer_email is None
                or (charge.customer_email or "").lower() == query.customer_email.lower()
            )
            and (query.invoice_id is None or charge.invoice_id == query.invoice_id)
        ]
        matching.sort(key=self._position, reverse=True)  # newest first, ties in insertion order
        page = matching
        if query.starting_after is not None:
            cursor = self._rows.get(query.starting_after)
            if cursor is None or not _owned_by(cursor[0], query.merchant_id, query.environment):
                page = []
            else:
                after = self._position(cursor[0])
                page = [charge for charge in matching if self._position(charge) < after]
        fetched = [copy.deepcopy(charge) for charge in page[: query.limit + 1]]
        return Page.of(fetched, query.limit, len(matching))

    async def cursor_exists(self, query: ChargeQuery) -> bool:
        row = self._rows.get(query.starting_after or "")
        return row is not None and _owned_by(row[0], query.merchant_id, query.environment)

    async def daily_volume(
        self, merchant_id: str, environment: Environment, since: datetime, until: datetime
    ) -> builtins.list[DayVolume]:
        sums: dict[tuple[datetime, str], tuple[int, int]] = {}
        for charge, _ in self._rows.values():
            at, captured = charge.captured_at, charge.amount_captured
            if not _owned_by(charge, merchant_id, environment) or at is None or captured is None:
                continue
            if since <= at < until:
                key = (at.replace(hour=0, minute=0, second=0, microsecond=0), charge.currency)
                amount, count = sums.get(key, (0, 0))
                sums[key] = (amount + captured, count + 1)
        return [DayVolume(day, cur, amount, n) for (day, cur), (amount, n) in sorted(sums.items())]

    async def due_for_expiry(self, claim: JobClaim, limit: int, owner: Owner | None = None) -> Sequence[str]:
        """One process: nothing to claim against."""
        return self._due(claim.now, limit, owner, awaiting_authorization=False)

    async def due_authorizations(
        self, claim: JobClaim, limit: int, owner: Owner | None = None
    ) -> Sequence[str]:
        return self._due(claim.now, limit, owner, awaiting_authorization=True)

    async def charge_id_for_dispute(self, dispute_id: str) -> str | None:
        for charge, _ in self._rows.values():
            if charge.dispute is not None and charge.dispute.id == dispute_id:
                return charge.id
        return None

    # -- internals ------------------------------------------------------------------------------------

    def _position(self, charge: Charge) -> tuple[datetime, int]:
        return charge.created, self._seq[charge.id]

    def _owned(self, owner: Owner | None) -> builtins.list[Charge]:
        return [
            charge
            for charge, _ in self._rows.values()
            if owner is None or _owned_by(charge, owner.merchant_id, owner.environment)
        ]

    def _due(
        self, now: datetime, limit: int, owner: Owner | None, *, awaiting_authorization: bool
    ) -> builtins.list[str]:
        """The domain's rule (`Charge.timer_due_at`) at each charge's merchant time, as the SQL judges it."""
        due: builtins.list[tuple[datetime, str]] = []
        for charge in self._owned(owner):
            at = charge.timer_due_at
            mine = charge.awaiting_authorization is awaiting_authorization
            if mine and at is not None and at <= now + self._offset(charge):
                due.append((at, charge.id))
        return [charge_id for _, charge_id in sorted(due)[:limit]]

    def _offset(self, charge: Charge) -> timedelta:
        if self.clocks is None:
            return timedelta(0)
        return self.clocks.offset(charge.merchant_id, charge.environment)


def _as_stored(charge: Charge) -> Charge:
    stored = copy.deepcopy(charge)
    stored.pending_events.clear()
    return stored


def _seen(charge: Charge, at: datetime | None) -> Charge:
    """The charge a status filter judges: as a read at the merchant's time `at` shows it (the domain's
    `Charge.seen_at`, which the SQL's _SEEN_STATUS mirrors), or as stored without one."""
    return charge if at is None else charge.seen_at(at)


def _owned_by(charge: Charge, merchant_id: str, environment: Environment) -> bool:
    return charge.merchant_id == merchant_id and charge.environment is environment


class RecordingProcessor:
    """A `PaymentProcessor` that records every request and answers like the TEST sandbox.

    `delay` keeps each authorization in flight for that long, so a test can show what happens to a
    second command that arrives meanwhile.
    """

    def __init__(self, delay: float = 0.0) -> None:
        self.delay = delay
        self.requests: list[PaymentRequest] = []
        self._sandbox = SandboxProcessor()

    async def authorize(self, request: PaymentRequest) -> PaymentOutcome:
        self.requests.append(request)
        if self.delay:
            await asyncio.sleep(self.delay)
        return await self._sandbox.authorize(request)


class RecordingProcessors:
    """`Processors` handing out one `RecordingProcessor` for every environment (and noting which asked)."""

    def __init__(self, delay: float = 0.0) -> None:
        self.processor = RecordingProcessor(delay)
        self.environments: list[Environment] = []

    @property
    def requests(self) -> list[PaymentRequest]:
        return self.processor.requests

    def for_environment(self, environment: Environment) -> RecordingProcessor:
        self.environments.append(environment)
        return self.processor
