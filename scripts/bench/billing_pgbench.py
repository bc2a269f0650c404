"""The database ceiling of the billing run: pgbench running one subscription's billing turn.

One transaction is what the run writes for one subscription's period end, built from the statements the
core itself sends (billing/storage/subscription_writes.py save_statement, payments charge_writes
create_statement) for a real template subscription of the bench, with the values the domain produces:

1. the fenced save that starts the next period and writes its OPEN invoice (items, prorations, tax),
   its `invoice.created` events;
2. the charge insert of that invoice's first attempt (captured, its events);
3. the fenced save that records the payment: the invoice PAID, prorations BILLED, the merchant's credit.

Each pgbench client saves its own copy of the template subscription (made like the bench's SQL copies),
so the saves update existing rows as the run's do; the invoice, charge and event ids are fresh per
transaction, and the new invoice's period start moves by a random number of microseconds (one invoice per
period and subscription is a unique index). Not in the script: the reads around the turn (the actor's
activation, the tax rate, the payment method, the customer), the due query and the claim release — so the
ratio shows how much of the run is the writes themselves.
"""

from __future__ import annotations

import asyncio
import copy
import re
import statistics
import subprocess
import tempfile
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import psycopg
from pgbench_ceiling import PgbenchResult, pgbench_binary, vary_event_ids
from psycopg import sql
from psycopg.rows import dict_row

PLACEHOLDER = re.compile(r"%\((\w+)\)s|%s")
CLIENT_K = 1_000_000
"""Copy number of pgbench client c's subscription: CLIENT_K + c (clear of the bench's copies)."""


def _template(dsn: str) -> tuple[Any, int, Any]:
    """The richest template (add-ons, prorations, a tax rate), hydrated as the actor loads it."""
    from core_server.billing.storage.subscription_repository import _hydrate
    from core_server.billing.storage.tax_rate_repository import _COLUMNS, tax_rate_from_row

    async def load() -> tuple[Any, int, Any]:
        async with await psycopg.AsyncConnection.connect(dsn, row_factory=dict_row) as conn:
            row = await (
                await conn.execute(
                    # Counted once per subscription by one scan: a count per row scanned the whole
                    # table 6,667 times (half a minute of setup at 10,000 subscriptions).
                    "SELECT s.* FROM subscriptions s LEFT JOIN (SELECT subscription_id, count(*) AS n"
                    " FROM pending_prorations GROUP BY subscription_id) p ON p.subscription_id = s.id"
                    " WHERE s.tax_rate_id IS NOT NULL ORDER BY coalesce(p.n, 0) DESC, s.seq LIMIT 1"
                )
            ).fetchone()
            assert row is not None
            subscription = (await _hydrate(conn, [row]))[0]
            rate_row = await (
                await conn.execute(
                    "SELECT " + _COLUMNS + " FROM tax_rates WHERE id = %s",  # noqa: S608 - constant text
                    (row["tax_rate_id"],),
                )
            ).fetchone()
            return subscription, int(row["fence_token"]), tax_rate_from_row(dict(rate_row or {}))

    return asyncio.run(load())


def sample_statements(dsn: str) -> dict[str, Any]:
    """The three statements of one billing turn with their parameters, and the ids that must vary."""
    from core_server.billing.application.subscription_view import subscription_events
    from core_server.billing.domain.events import INVOICE_UPCOMING
    from core_server.billing.domain.invoice import InvoiceStatus
    from core_server.billing.storage.subscription_writes import save_statement
    from core_server.kernel.application.ports import TurnWrite
    from core_server.payments.application.charge_view import ChargeViews
    from core_server.payments.domain.invoice_payment import InvoicePayment, invoice_charge
    from core_server.payments.domain.payment import CardDetails, PaymentMethodType, PaymentOutcome
    from core_server.payments.storage.charge_writes import create_statement

    subscription, fence, rate = _template(dsn)
    template_id = subscription.id
    # As the run finds it: the period's notice sent (make_due records it), then the period end.
    subscription.notices.add((INVOICE_UPCOMING, subscription.current_period_end))
    at: datetime = subscription.current_period_end
    invoice = subscription.end_period(rate, at)
    assert invoice is not None
    first = save_statement(subscription, fence, TurnWrite(subscription_events(subscription)))
    subscription.pending_events.clear()
    subscription.invoices = [inv for inv in subscription.invoices if inv.status is InvoiceStatus.OPEN]
    payment = InvoicePayment(
        invoice_id=invoice.id,
        attempt=1,
        amount=invoice.total_cents,
        currency=invoice.currency,
        description=f"Invoice {invoice.id} (subscription_cycle)",
        customer_email="customer@bench.example",
        method=PaymentMethodType.CARD,
        details=CardDetails("visa", "4242", 12, 2099, "credit", "US", "f" * 64),
    )
    charge = invoice_charge(
        "ch_" + "S" * 32,
        subscription.merchant_id,
        subscription.environment,
        payment,
        PaymentOutcome(approved=True, transaction_id="txn_bench"),
        at,
    )
    second = create_statement(charge, TurnWrite(ChargeViews("http://127.0.0.1:8000").events(charge)), None)
    subscription = copy.deepcopy(subscription)
    target = next(inv for inv in subscription.invoices if inv.id == invoice.id)
    subscription.record_attempt(target, charge.id, True, at)
    third = save_statement(subscription, fence, TurnWrite(subscription_events(subscription)))
    return {
        "statements": [first, second, third],
        "template_id": template_id,
        "child_ids": [i.id for i in subscription.items] + [p.id for p in subscription.prorations],
        "invoice_id": invoice.id,
        "period_start": invoice.period_start,
        "charge_id": charge.id,
        "fence": fence,
    }


def _fresh(sample_id: str, salt: int) -> str:
    """A per-transaction id shaped like `sample_id` (prefix kept, hex body of the same length)."""
    prefix = sample_id.split("_", 1)[0] + "_"
    body = len(sample_id) - len(prefix)
    return (
        f"('{prefix}' || substr(md5(CAST(:n AS text) || ':{salt}:' || CAST(:client_id AS text))"
        f" || md5(CAST(:client_id AS text) || ':{salt}'), 1, {body}))"
    )


def _copied(sample_id: str) -> str:
    """Client's copy of a template row, the id the bench's SQL copy gives copy number :k."""
    body = len(sample_id) - len(sample_id.split("_")[0]) - 1
    return (
        f"(split_part('{sample_id}', '_', 1) || '_' || substr(md5('{sample_id}' || ':' || CAST(:k AS text))"
        f" || md5(CAST(:k AS text) || ':' || '{sample_id}'), 1, {body}))"
    )


def build_script(conn: psycopg.Connection[Any], samples: dict[str, Any]) -> tuple[str, dict[str, str]]:
    """The pgbench script and its `-D` variables (text values travel as bound variables, as in
    pgbench_ceiling.py)."""
    varying: dict[str, str] = {samples["template_id"]: _copied(samples["template_id"])}
    for child in samples["child_ids"]:
        varying[child] = _copied(child)
    varying[samples["invoice_id"]] = _fresh(samples["invoice_id"], 1)
    varying[samples["charge_id"]] = _fresh(samples["charge_id"], 2)
    defines: dict[str, str] = {}
    salts = iter(range(10, 10_000))
    lines = [f"\\set k {CLIENT_K} + :client_id", "\\set n random(1, 9000000000000000)", "BEGIN;"]
    fresh_events: dict[str, str] = {}

    def fresh_event(event_id: str) -> str:
        if event_id not in fresh_events:
            fresh_events[event_id] = _fresh(event_id, next(salts))
        return fresh_events[event_id]

    for template, params in samples["statements"]:

        def render(value: Any, key: str = "") -> str:
            if isinstance(value, str) and value in varying:
                return varying[value]
            if isinstance(value, str):
                events = vary_event_ids(value, defines, fresh_event)
                if events is not None:
                    return events
            if isinstance(value, list):
                if not value:
                    return "'{}'"
                return f"ARRAY[{', '.join(render(v, key) for v in value)}]"
            if value is None or value == "" or isinstance(value, bool | int):
                return sql.Literal(value).as_string(conn)
            if isinstance(value, datetime):
                text = value.isoformat()
            elif isinstance(value, bytes):
                text = "\\x" + value.hex()
            elif isinstance(value, psycopg.types.json.Jsonb):
                import json

                text = json.dumps(value.obj)
            else:
                text = str(value)
            name = f"v{len(defines)}"
            defines[name] = text
            if key == "inv_period_starts" and value == samples["period_start"]:
                # One invoice per (subscription, period start): each transaction's period is its own.
                return f"(CAST(:{name} AS timestamptz) + CAST(:n AS bigint) * interval '1 microsecond')"
            return f":{name}"

        def bind(match: re.Match[str], params: dict[str, Any] = params) -> str:
            return render(params[match.group(1)], match.group(1))

        statement = " ".join(PLACEHOLDER.sub(bind, template).split())
        lines.append(statement.rstrip(";") + ";")
    lines.append("COMMIT;")
    return "\n".join(lines) + "\n", defines


def run(
    dsn: str,
    samples: dict[str, Any],
    *,
    clients: int,
    seconds: int,
    copy_rows: Callable[[psycopg.Connection[Any], str, list[int], int], None],
) -> PgbenchResult:
    """pgbench in the bench database itself (after the run and its check): each client its own copy."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        limit = int(conn.execute("SHOW max_connections").fetchone()[0])  # type: ignore[index]
        used = int(conn.execute("SELECT count(*) FROM pg_stat_activity").fetchone()[0])  # type: ignore[index]
        clients = max(1, min(clients, limit - used - 12))
    with psycopg.connect(dsn) as conn:
        copy_rows(conn, samples["template_id"], [CLIENT_K + c for c in range(clients)], samples["fence"])
    with psycopg.connect(dsn, autocommit=True) as conn:
        script, defines = build_script(conn, samples)
    with tempfile.TemporaryDirectory(prefix="pgbench-billing-") as tmp:
        script_path = Path(tmp) / "billing_turn.sql"
        script_path.write_text(script)
        command = [
            pgbench_binary(), "-n", "-M", "prepared", "-c", str(clients), "-j", "2", "-T", str(seconds),
            "-f", str(script_path), "-l", "--log-prefix", str(Path(tmp) / "log"),
            *(f"-D{name}={value}" for name, value in defines.items()), dsn,
        ]  # fmt: skip
        done = subprocess.run(command, capture_output=True, text=True, timeout=seconds + 120, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"pgbench failed (exit {done.returncode}):\n{done.stderr[-3000:]}")
        latencies = sorted(
            int(line.split()[2]) for log in Path(tmp).glob("log*") for line in log.read_text().splitlines()
        )
    tps = re.search(r"tps = ([\d.]+) \(without initial connection time\)", done.stdout)
    failed = re.search(r"number of failed transactions: (\d+)", done.stdout)
    processed = re.search(r"number of transactions actually processed: (\d+)", done.stdout)
    if tps is None or not latencies:
        raise RuntimeError(f"cannot read pgbench output:\n{done.stdout[-2000:]}")
    quantiles = statistics.quantiles(latencies, n=100, method="inclusive")
    return PgbenchResult(
        clients=clients,
        seconds=seconds,
        tps=float(tps.group(1)),
        p50_ms=quantiles[49] / 1000,
        p99_ms=quantiles[98] / 1000,
        transactions=int(processed.group(1)) if processed else len(latencies),
        failed=int(failed.group(1)) if failed else 0,
        script=script,
    )
