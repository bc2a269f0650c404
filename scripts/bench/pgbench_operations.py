"""Per-operation database ceilings: pgbench running, per transaction, every statement one request sends.

The statements are not written here: the core's own ChargeService (with its idempotency runner, charge
actor and repositories) serves one request of each operation against a scratch database through a
pool that notes each statement and its parameters as it runs it for real. The noted sequence becomes
the pgbench script, values rendered as pgbench variables, so each ceiling follows the core's SQL.

Per transaction:
- create: the one statement of a create with an Idempotency-Key (claim, charge, event, answer).
- retrieve: GetCharge of one of ~1,000 charges of a reads merchant, shaped like the bench's reads merchant
  (every fifth captured and partly refunded); the refunds query runs only for those, as in the core.
- list: ListCharges `limit=10` of that merchant (count and page in one statement).
- capture / refund: the Idempotency-Key claim, the actor's activation (fence bump returning the row) and
  the fenced save with its ledger row, event and stored answer. The Redis lease is not SQL. Each capture
  takes a fresh seeded authorized charge (each client walks its own stride of a pool), so its ledger row
  is new, as a real first capture's is. Each refund takes a random seeded captured charge from its
  client's own slice (no two clients fight over a fence) with a new refund id, key and event ids.
  Deviation: a seeded charge refunded again already has `amount_refunded > 0`, where the core would
  also select its refunds on activation; the script keeps the first refund's sequence (the bench flow's
  single refund), so that select is left out. The fence of the save is the one the activation returned
  (`\\gset`), so every guard holds; the runner checks afterwards that every transaction wrote its ledger
  row.
"""

from __future__ import annotations

import asyncio
import statistics
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, cast

import psycopg
from pgbench_ceiling import (
    MERCHANT,
    UNIQUE,
    PgbenchResult,
    _migrate,
    render_statement,
    run_script,
    vary_event_ids,
)
from psycopg import sql
from psycopg.rows import dict_row

OPERATIONS = ("create", "retrieve", "list", "capture", "refund")
READS_MERCHANT = "m_pgbench_reads"
READS = 1000
"""Charges of the reads merchant, like stack.py's seed; every fifth one captured and partly refunded."""
REFUND_POOL = 10_000
CAPTURE_RATE_BOUND = 4000
"""Captures per second no run on this hardware comes near: each run seeds this many per second."""
_N = "\\set n random(1, 9000000000000000)"

Sent = list[tuple[str, Any]]


class _Var:
    """A parameter that is a pgbench variable set earlier in the same transaction."""

    def __init__(self, sql_text: str) -> None:
        self.sql_text = sql_text


class _Recorder:
    """Stands in for the core's pool: every statement runs on one real connection and is noted."""

    timeout = 30.0  # the pool's wait for a connection, which the repositories read (the list's scan gate)

    def __init__(self, conn: psycopg.AsyncConnection[Any]) -> None:
        self.conn = conn
        self.sent: Sent = []

    @asynccontextmanager
    async def connection(self) -> AsyncIterator[_Recorder]:
        yield self

    async def execute(self, query: str, params: Any = None, **options: Any) -> Any:
        self.sent.append((query, params))
        return await self.conn.execute(query, params, **options)

    def transaction(self) -> Any:
        return self.conn.transaction()

    def take(self) -> Sent:
        sent, self.sent = self.sent, []
        return sent


class _NoOffsets:
    """The core caches each merchant's clock offset: a request sends no query for it."""

    async def get(self, merchant_id: str) -> timedelta:
        return timedelta(0)

    async def set(self, merchant_id: str, offset: timedelta) -> None:
        raise NotImplementedError("no sandbox clock is advanced here")


@dataclass
class _Recorded:
    sent: dict[str, Sent]
    ids: dict[str, str]  # the sample charge, refund and key values to vary per transaction


async def _record(dsn: str) -> _Recorded:
    """One request of each operation through the core's own service; their statements, as sent."""
    from connect.v1 import charge_service_pb2 as pb

    from core_server.actors import ActorRegistry
    from core_server.kernel.application.clocks import MerchantClocks, SystemClock
    from core_server.kernel.application.idempotency import IdempotentRunner
    from core_server.kernel.application.owner import Owner
    from core_server.kernel.application.ports import IdempotencyRequest
    from core_server.kernel.domain.environment import Environment
    from core_server.kernel.storage.idempotency_store import PgIdempotencyStore
    from core_server.kernel.transport.mapping import api_scope
    from core_server.payments.application.charge_actor import ChargeActor, ChargeActorDeps
    from core_server.payments.application.charge_commands import CompleteCheckout
    from core_server.payments.application.charge_view import ChargeViews
    from core_server.payments.application.charges import ChargeService, NewCharge
    from core_server.payments.domain.card import CardInput
    from core_server.payments.domain.charge import Charge
    from core_server.payments.processors.live_processor import UnconfiguredLiveProcessor
    from core_server.payments.processors.routing import EnvironmentProcessors
    from core_server.payments.processors.sandbox_processor import SandboxProcessor
    from core_server.payments.storage.charge_repository import PgChargeRepository
    from core_server.payments.transport.mapping import charge_to_pb, refund_to_pb

    conn = await psycopg.AsyncConnection.connect(dsn, autocommit=True, row_factory=dict_row)
    recorder = _Recorder(conn)
    pool = cast(Any, recorder)
    clock = SystemClock()
    clocks = MerchantClocks(clock, _NoOffsets())
    store = PgIdempotencyStore(pool, b"i" * 32, process="pgbench")
    repo = PgChargeRepository(pool, store)
    views = ChargeViews("http://127.0.0.1:8000")
    processors = EnvironmentProcessors(test=SandboxProcessor(), live=UnconfiguredLiveProcessor())
    deps = ChargeActorDeps(repo, clocks, processors, b"f" * 32, views)
    actors = ActorRegistry(lambda cid: ChargeActor(cid, None, deps), idle_timeout=0.001, name="charge")
    runner = IdempotentRunner(store, clock)  # as the RPCs' one path (kernel/transport/idempotent_rpc.py)
    service = ChargeService(repo, actors, clocks, views, ask_timeout=5.0)
    new = NewCharge(2500, "usd", "https://shop.example/thanks", "bench order", {"order_id": "6735"},
                    "https://shop.example/cart", None)  # fmt: skip
    card = CardInput("4242424242424242", 12, 2099, "123")

    def charge_bytes(charge: Any) -> bytes:
        return bytes(pb.CaptureChargeResponse(charge=charge_to_pb(charge, views)).SerializeToString())

    def refund_bytes(result: Any) -> bytes:
        refund, charge = result
        answer = pb.RefundChargeResponse(refund=refund_to_pb(refund), charge=charge_to_pb(charge, views))
        return bytes(answer.SerializeToString())

    def key(owner: Owner, name: str) -> IdempotencyRequest:
        return IdempotencyRequest(
            scope=api_scope(owner), key=f"KEY-{name}-{uuid.uuid4().hex}", fingerprint="f" * 64
        )

    async def passivated() -> None:  # every request below activates its charge afresh, as after idling
        while actors.active_count:  # noqa: ASYNC110 - the registry offers no event for its last actor's end
            await asyncio.sleep(0.005)

    async def made(owner: Owner, request: IdempotencyRequest | None = None) -> str:
        created = await runner.run(
            request, charge_bytes, lambda claim: service.create(owner, new, claim), first_claim=True
        )
        assert isinstance(created, Charge)
        return created.id

    async def paid(charge_id: str) -> None:
        await actors.ask(charge_id, CompleteCheckout("card", card, None), timeout=5.0)
        await passivated()

    try:
        ops = Owner(MERCHANT, Environment.TEST)
        reads = Owner(READS_MERCHANT, Environment.TEST)
        sent: dict[str, Sent] = {}
        ids: dict[str, str] = {}
        create_key = key(ops, "create")
        recorder.take()
        ids["create"], ids["create_key"] = await made(ops, create_key), create_key.key
        sent["create"] = recorder.take()
        charge_id = await made(ops)
        await paid(charge_id)
        await _copy_row(conn, charge_id, "ch_tpl_authorized")
        capture_key = key(ops, "capture")
        recorder.take()
        await runner.run(
            capture_key, charge_bytes, lambda claim: service.capture(ops, charge_id, 2000, claim)
        )
        await passivated()
        sent["capture"] = recorder.take()
        await _copy_row(conn, charge_id, "ch_tpl_captured")
        refund_key = key(ops, "refund")
        recorder.take()
        refunded = await runner.run(
            refund_key,
            refund_bytes,
            lambda claim: service.refund(ops, charge_id, 500, "customer_request", claim),
        )
        await passivated()
        sent["refund"] = recorder.take()
        ids.update(flow=charge_id, capture_key=capture_key.key, refund_key=refund_key.key)
        ids["refund_id"] = refunded[0].id  # type: ignore[index]
        ids.update(read_pending=await made(reads), read_settled=await made(reads))
        await paid(ids["read_settled"])
        await service.capture(reads, ids["read_settled"], 2000)
        await passivated()
        await service.refund(reads, ids["read_settled"], 500, "customer_request")
        await passivated()
        recorder.take()
        await service.get(reads, ids["read_settled"])
        sent["retrieve"] = recorder.take()
        await service.list(reads, limit=10, status=None, created_after=None, created_before=None,
                           starting_after=None)  # fmt: skip
        sent["list"] = recorder.take()
        return _Recorded(sent, ids)
    finally:
        await actors.stop_all(1.0)
        await conn.close()


_COLUMNS = (
    "SELECT column_name FROM information_schema.columns WHERE table_name = 'charges' "
    "AND column_name NOT IN ('id', 'seq', 'created_at') ORDER BY ordinal_position"
)


def _copy_sql(columns: list[str], only: str = "true") -> sql.Composed:
    """Copies of charge `source` with ids `prefix || g` (`prefix` alone when `single`), each a
    millisecond older; `only` (a constant of this module) keeps some of the `g`."""
    names = sql.SQL(", ").join(sql.Identifier(c) for c in columns)
    return sql.SQL(
        "INSERT INTO charges (id, created_at, {names}) "
        "SELECT CASE WHEN %(single)s THEN %(prefix)s ELSE %(prefix)s || g END, "
        "s.created_at - g * interval '1 millisecond', {names} "
        "FROM charges s, generate_series(%(first)s::bigint, %(last)s::bigint) g "
        "WHERE s.id = %(source)s AND {only}"
    ).format(names=names, only=sql.SQL(only))


async def _copy_row(conn: psycopg.AsyncConnection[Any], charge_id: str, new_id: str) -> None:
    columns = [row["column_name"] for row in await (await conn.execute(_COLUMNS)).fetchall()]
    params = {"source": charge_id, "prefix": new_id, "first": 0, "last": 0, "single": True}
    await conn.execute(_copy_sql(columns), params)


def _seed(
    conn: psycopg.Connection[Any], source: str, prefix: str, first: int, last: int, only: str = "true"
) -> None:
    if last >= first:
        columns = [row[0] for row in conn.execute(_COLUMNS).fetchall()]
        params = {"source": source, "prefix": prefix, "first": first, "last": last, "single": False}
        conn.execute(_copy_sql(columns, only), params)


def _seed_reads(conn: psycopg.Connection[Any], ids: dict[str, str]) -> None:
    """~1,000 charges of the reads merchant; every fifth a copy of the settled one, with its refund."""
    _seed(conn, ids["read_pending"], "ch_read_", 1, READS, "mod(g, 5) <> 0")
    _seed(conn, ids["read_settled"], "ch_read_", 1, READS, "mod(g, 5) = 0")
    conn.execute(
        "INSERT INTO refunds (id, charge_id, amount, currency, status, reason, created_at) "
        "SELECT 're_read_' || g, 'ch_read_' || g, r.amount, r.currency, r.status, r.reason, r.created_at "
        "FROM refunds r, generate_series(5, %s, 5) g WHERE r.charge_id = %s",
        (READS, ids["read_settled"]),
    )


class OperationDatabase:
    """A migrated scratch database with the recorded statements and the seeded rows; `run` measures one
    operation in it. Dropped on exit. Creating and seeding it once serves every operation and run."""

    def __init__(self, admin_dsn: str, database_dsn_for: Callable[[str], str]) -> None:
        self.admin_dsn = admin_dsn
        self.name = f"pc_bench_ops_{uuid.uuid4().hex[:8]}"
        self.dsn = ""
        self._database_dsn_for = database_dsn_for
        self._capture_base = 1
        self._capture_seeded = 0

    def __enter__(self) -> OperationDatabase:
        with psycopg.connect(self.admin_dsn, autocommit=True) as conn:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(self.name)))
        self.dsn = self._database_dsn_for(self.name)
        try:
            with psycopg.connect(self.dsn, autocommit=True) as conn:
                _migrate(conn)
                conn.execute(
                    "INSERT INTO merchants (id, email, password_hash, created_at) "
                    "VALUES (%s, %s, 'x', now())",
                    (READS_MERCHANT, "pgbench-reads@bench.example"),
                )
            self.recorded = asyncio.run(_record(self.dsn))
            with psycopg.connect(self.dsn, autocommit=True) as conn:
                _seed_reads(conn, self.recorded.ids)
                _seed(conn, "ch_tpl_captured", "ch_ref_", 0, REFUND_POOL - 1)
                conn.execute("VACUUM ANALYZE")
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        with psycopg.connect(self.admin_dsn, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(self.name)))

    def script(
        self, operation: str, clients: int, seconds: float, transactions: int | None = None
    ) -> tuple[str, dict[str, str]]:
        """The pgbench script of `operation` and its `-D` variables (seeding capture's pool as needed)."""
        ids, sent = self.recorded.ids, self.recorded.sent[operation]
        defines: dict[str, str] = {}
        lines = [_N]
        varying: dict[str, str] = {}
        for name, prefix in (("create_key", "'k'"), ("capture_key", "'k'"), ("refund_key", "'k'")):
            varying[ids[name]] = UNIQUE.format(prefix=prefix)
        varying[ids["create"]] = UNIQUE.format(prefix="'ch_'")
        varying[ids["refund_id"]] = UNIQUE.format(prefix="'re_'")
        if operation == "capture":
            cap = clients * transactions if transactions else int(CAPTURE_RATE_BOUND * max(seconds, 1.0))
            self._top_up_captures(cap)
            defines.update(k="0", base=str(self._capture_base), clients=str(clients), cap=str(cap))
            lines += ["\\set k :k + 1", "\\set idx :base + (:client_id + :clients * (:k - 1)) % :cap"]
            varying[ids["flow"]] = "('ch_cap_' || CAST(:idx AS text))"
        elif operation == "refund":
            defines["slice"] = str(max(1, REFUND_POOL // clients))
            lines.append("\\set idx :client_id * :slice + random(0, :slice - 1)")
            varying[ids["flow"]] = "('ch_ref_' || CAST(:idx AS text))"
        elif operation == "retrieve":
            lines.append(f"\\set r random(1, {READS})")
            varying[ids["read_settled"]] = "('ch_read_' || CAST(:r AS text))"
        events = 0

        def substitute(value: Any) -> str | None:
            nonlocal events
            if isinstance(value, _Var):
                return value.sql_text
            if not isinstance(value, str):
                return None
            if value in varying:
                return varying[value]
            return vary_event_ids(value, defines, event_id)

        def event_id(value: str) -> str:
            nonlocal events
            if value not in varying:
                events += 1
                varying[value] = UNIQUE.format(prefix=f"'evt{events}_'")
            return varying[value]

        with psycopg.connect(self.dsn, autocommit=True) as conn:
            for index, (template, params) in enumerate(sent):
                if "fence_token = fence_token + 1" in template:  # the activation: its fence feeds the save
                    lines.append(
                        render_statement(conn, template, params, defines, substitute)[:-1] + " \\gset act_"
                    )
                    continue
                if isinstance(params, dict) and "fence" in params:
                    params = {**params, "fence": _Var(":act_fence_token")}
                statement = render_statement(conn, template, params, defines, substitute)
                if operation == "retrieve" and index == 0:
                    lines.append(statement[:-1] + " \\gset g_")
                    lines.append("\\if :g_amount_refunded > 0")  # the core hydrates refunds only then
                elif operation == "retrieve" and index == len(sent) - 1:
                    lines += [statement, "\\endif"]
                else:
                    lines.append(statement)
        if operation == "retrieve" and len(sent) == 1:
            lines.append("\\endif")
        return "\n".join(lines) + "\n", defines

    def _top_up_captures(self, cap: int) -> None:
        with psycopg.connect(self.dsn, autocommit=True) as conn:
            used = conn.execute(
                "SELECT max(substr(id, 8)::bigint) FROM charges "
                "WHERE id LIKE 'ch\\_cap\\_%' AND status <> 'authorized'"
            ).fetchone()
            if used and used[0] is not None:
                self._capture_base = max(self._capture_base, int(used[0]) + 1)
            last = self._capture_base + cap - 1
            _seed(conn, "ch_tpl_authorized", "ch_cap_", self._capture_seeded + 1, last)
            self._capture_seeded = max(self._capture_seeded, last)

    def _ledger_rows(self) -> int:
        with psycopg.connect(self.dsn, autocommit=True) as conn:
            return int(conn.execute("SELECT count(*) FROM balance_transactions").fetchone()[0])  # type: ignore[index]

    def run(
        self, operation: str, *, clients: int, seconds: float, transactions: int | None = None
    ) -> PgbenchResult:
        """pgbench of `operation` for `seconds` (or `transactions` per client); for capture and refund,
        raises unless every transaction wrote its ledger row (its fence and claim guards held)."""
        if operation not in OPERATIONS:
            raise ValueError(f"unknown operation {operation!r}; one of {OPERATIONS}")
        script, defines = self.script(operation, clients, seconds, transactions)
        before = self._ledger_rows()
        result = run_script(self.admin_dsn, self.dsn, script, defines, clients=clients, seconds=seconds,
                            transactions=transactions, name=f"pgbench_{operation}")  # fmt: skip
        written = self._ledger_rows() - before
        if operation in ("capture", "refund") and written != result.transactions:
            raise RuntimeError(f"{operation}: {result.transactions} transactions but {written} ledger rows")
        return result


def run_operation_pgbench(
    admin_dsn: str, database_dsn_for: Callable[[str], str], operation: str, *, clients: int, seconds: float
) -> PgbenchResult:
    """One operation's ceiling in a scratch database of its own (made, seeded and dropped here)."""
    with OperationDatabase(admin_dsn, database_dsn_for) as database:
        return database.run(operation, clients=clients, seconds=seconds)


def measure_all(
    admin_dsn: str,
    database_dsn_for: Callable[[str], str],
    clients_list: list[int],
    seconds: float,
    repeat: int,
) -> dict[str, dict[str, dict[str, Any]]]:
    """`{operation: {"c<clients>": json}}`, each the median of `repeat` runs, all in one scratch database."""
    measured: dict[str, dict[str, dict[str, Any]]] = {}
    with OperationDatabase(admin_dsn, database_dsn_for) as database:
        for operation in OPERATIONS:
            for clients in clients_list:
                runs = [
                    database.run(operation, clients=clients, seconds=seconds) for _ in range(max(1, repeat))
                ]
                measured.setdefault(operation, {})[f"c{clients}"] = median_json(runs)
    return measured


def median_json(runs: list[PgbenchResult]) -> dict[str, Any]:
    """The runs' as_json with each figure the median of the runs; `failed` is their sum."""
    shown = [run.as_json() for run in runs]
    merged = dict(shown[0])
    for field in ("seconds", "requests", "rps", "p50_ms", "p99_ms", "max_ms"):
        merged[field] = round(statistics.median(entry[field] for entry in shown), 2)
    merged["failed"] = sum(entry["failed"] for entry in shown)
    merged["runs"] = len(shown)
    return merged
