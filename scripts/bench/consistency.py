"""The consistency pass after the mixed run: money rules, lost writes and idempotent answers.

Every check is a count of violations; all of them must be 0. The database is read directly (the
checks must not trust the code under test), and the client side of the run (what each wrk thread saw
succeed, bench/lua/mixed.lua) is compared with what PostgreSQL holds.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
from connect.v1 import charge_service_pb2
from psycopg.rows import dict_row

MONEY_CHECKS = {
    "captured_above_amount": "SELECT count(*) AS n FROM charges WHERE amount_captured > amount",
    "refunded_above_captured": (
        "SELECT count(*) AS n FROM charges WHERE amount_refunded > coalesce(amount_captured, 0)"
    ),
    "refund_rows_disagree_with_total": """
        SELECT count(*) AS n FROM charges c
        LEFT JOIN (SELECT charge_id, sum(amount) AS total FROM refunds GROUP BY charge_id) r
               ON r.charge_id = c.id
        WHERE c.amount_refunded <> coalesce(r.total, 0)""",
    "status_disagrees_with_amounts": """
        SELECT count(*) AS n FROM charges WHERE
           (status = 'refunded' AND amount_refunded <> amount_captured)
        OR (status = 'partially_refunded' AND NOT (amount_refunded > 0 AND amount_refunded < amount_captured))
        OR (status = 'captured' AND (amount_captured IS NULL OR amount_refunded <> 0))
        OR (status IN ('pending', 'authorized', 'voided', 'failed', 'expired')
            AND amount_captured IS NOT NULL)""",
    "one_key_created_two_charges": """
        SELECT count(*) AS n FROM (SELECT 1 FROM charges WHERE idempotency_key IS NOT NULL
                                   GROUP BY merchant_id, environment, idempotency_key
                                   HAVING count(*) > 1) d""",
    # Joins on per-charge counts (events has no index on object_id: a correlated count per charge would
    # scan it once per charge).
    "charge_without_created_event": """
        SELECT count(*) AS n FROM charges c
        LEFT JOIN (SELECT DISTINCT object_id FROM events WHERE type = 'charge.created') e
               ON e.object_id = c.id
        WHERE e.object_id IS NULL""",
    "authorized_without_completed_event": """
        SELECT count(*) AS n FROM charges c
        LEFT JOIN (SELECT DISTINCT object_id FROM events WHERE type = 'charge.completed') e
               ON e.object_id = c.id
        WHERE c.authorized_at IS NOT NULL AND e.object_id IS NULL""",
    "refunds_disagree_with_refund_events": """
        SELECT count(*) AS n FROM charges c
        LEFT JOIN (SELECT charge_id, count(*) AS n FROM refunds GROUP BY charge_id) r ON r.charge_id = c.id
        LEFT JOIN (SELECT object_id, count(*) AS n FROM events WHERE type = 'charge.refunded'
                    GROUP BY object_id) e
               ON e.object_id = c.id
        WHERE coalesce(r.n, 0) <> coalesce(e.n, 0)""",
    # The ledger (DESIGN §9): each capture and refund has its balance transaction, of its amount
    # (the full reconciliation, `_reconciliation`, proves the rest: disputes, paid invoices, payouts,
    # orphans, balances).
    "capture_without_its_balance_transaction": """
        SELECT count(*) AS n FROM charges c
        LEFT JOIN balance_transactions bt ON bt.type = 'charge' AND bt.source = c.id
        WHERE c.amount_captured IS NOT NULL AND c.invoice_id IS NULL
          AND (bt.id IS NULL OR bt.amount <> c.amount_captured)""",
    "refund_without_its_balance_transaction": """
        SELECT count(*) AS n FROM refunds r
        LEFT JOIN balance_transactions bt ON bt.type = 'refund' AND bt.source = r.id
        WHERE bt.id IS NULL OR bt.amount <> -r.amount""",
}


RECONCILE = Path(__file__).resolve().parents[1] / "reconcile.py"
RECONCILE_TIMEOUT_SECONDS = 900


def _reconciliation(database_dsn: str) -> dict[str, int]:
    """The full reconciliation (`make reconcile --direct`, docs/ledger.md): disputes, paid
    invoices, payouts, orphan rows and every balance against its rows, beyond the two checks above.
    A ledger it could not read is a violation of its own, not zero findings."""
    try:
        run = subprocess.run(
            [sys.executable, str(RECONCILE), "--direct", "--quiet"],
            env={**os.environ, "DATABASE_URL": database_dsn},
            capture_output=True,
            text=True,
            timeout=RECONCILE_TIMEOUT_SECONDS,
            check=False,
        )
    except subprocess.TimeoutExpired:
        print(f"  reconciliation: no answer within {RECONCILE_TIMEOUT_SECONDS} s", flush=True)
        return {"ledger_reconciliation_findings": 0, "ledger_reconciliation_unreadable": 1}
    findings = [line for line in run.stdout.splitlines() if line.startswith("MISMATCH")]
    unreadable = run.returncode not in (0, 1) or (run.returncode == 1) != bool(findings)
    for line in findings[:20] if not unreadable else [run.stdout, run.stderr]:
        print(f"  reconciliation: {line}", flush=True)
    return {
        "ledger_reconciliation_findings": len(findings),
        "ledger_reconciliation_unreadable": int(unreadable),
    }


@dataclass(frozen=True, slots=True)
class ConsistencyReport:
    checks: dict[str, int]
    totals: dict[str, int]

    @property
    def ok(self) -> bool:
        return all(v == 0 for v in self.checks.values())

    def as_json(self) -> dict[str, Any]:
        return {"ok": self.ok, "violations": self.checks, "totals": self.totals}


def _seen(out_dir: Path) -> dict[str, list[list[str]]]:
    """What the load generator saw succeed, by kind (created/captured/refund/voided)."""
    seen: dict[str, list[list[str]]] = defaultdict(list)
    for path in sorted(out_dir.glob("seen-*.txt")):
        for line in path.read_text().splitlines():
            parts = line.split()
            if parts:
                seen[parts[0]].append(parts[1:])
    return seen


def _client_checks(conn: psycopg.Connection[Any], seen: dict[str, list[list[str]]]) -> dict[str, int]:
    """Every success the client was told of is in the database, with the amounts it was told."""
    created = [row[0] for row in seen["created"]]
    rows = conn.execute(
        "SELECT id, status, amount_captured FROM charges WHERE id = ANY(%s)",
        ([*created, *(r[0] for r in seen["captured"]), *(r[0] for r in seen["voided"])],),
    ).fetchall()
    charges = {row["id"]: row for row in rows}
    refund_rows = conn.execute(
        "SELECT id, charge_id, amount FROM refunds WHERE id = ANY(%s)", ([r[1] for r in seen["refund"]],)
    ).fetchall()
    refunds = {row["id"]: row for row in refund_rows}
    return {
        "acknowledged_create_lost": sum(1 for cid in created if cid not in charges),
        "acknowledged_capture_lost": sum(
            1
            for cid, amount in seen["captured"]
            if cid not in charges or str(charges[cid]["amount_captured"]) != amount
        ),
        "acknowledged_refund_lost": sum(
            1
            for cid, rid, amount in seen["refund"]
            if rid not in refunds or refunds[rid]["charge_id"] != cid or str(refunds[rid]["amount"]) != amount
        ),
        "acknowledged_void_lost": sum(
            1 for (cid,) in seen["voided"] if cid not in charges or charges[cid]["status"] != "voided"
        ),
    }


def _answer_checks(
    conn: psycopg.Connection[Any], merchant_id: str | None
) -> tuple[dict[str, int], dict[str, int]]:
    """Stored idempotent answers: a create's answer names the charge made under its key, no charge has
    two successful capture answers under different keys (a double capture), and (for the mixed run's
    merchant, whose every write carries a key) every refund and capture written has its stored answer —
    a write committed after its claim was given up would be run again by a retry."""
    rows = conn.execute(
        "SELECT scope, key, response FROM idempotency_keys WHERE state = 'completed' AND response IS NOT NULL"
    ).fetchall()
    by_key = {
        (row["merchant_id"] + ":" + row["environment"], row["idempotency_key"]): row["id"]
        for row in conn.execute(
            "SELECT id, merchant_id, environment, idempotency_key FROM charges"
            " WHERE idempotency_key IS NOT NULL"
        ).fetchall()
    }
    wrong_create = 0
    captures: defaultdict[str, int] = defaultdict(int)
    creates, refund_answers = 0, set()
    for row in rows:
        key = row["key"]
        if "-create-" in key:
            creates += 1
            answer = charge_service_pb2.CreateChargeResponse.FromString(bytes(row["response"]))
            if by_key.get((row["scope"], key)) != answer.charge.id:
                wrong_create += 1
        elif "-capture-" in key:
            answer = charge_service_pb2.CaptureChargeResponse.FromString(bytes(row["response"]))
            captures[answer.charge.id] += 1
        elif "-refund-" in key or "-overrefund-" in key:
            refund_answers.add(
                charge_service_pb2.RefundChargeResponse.FromString(bytes(row["response"])).refund.id
            )
    checks = {
        "create_answer_names_other_charge": wrong_create,
        "double_capture_answers": sum(1 for n in captures.values() if n > 1),
    }
    if merchant_id is not None:
        written = conn.execute(
            "SELECT r.id FROM refunds r JOIN charges c ON c.id = r.charge_id WHERE c.merchant_id = %s",
            (merchant_id,),
        ).fetchall()
        checks["refund_without_stored_answer"] = sum(1 for r in written if r["id"] not in refund_answers)
        captured = conn.execute(
            "SELECT id FROM charges WHERE merchant_id = %s AND amount_captured IS NOT NULL", (merchant_id,)
        ).fetchall()
        checks["capture_without_stored_answer"] = sum(1 for r in captured if r["id"] not in captures)
    in_progress = conn.execute(
        "SELECT count(*) AS n FROM idempotency_keys WHERE state = 'in_progress'"
    ).fetchone()
    totals = {
        "stored_create_answers": creates,
        "stored_capture_answers": sum(captures.values()),
        # Not a violation: a request cut off by the end of the run may leave its claim, which lapses
        # after IDEMPOTENCY_CLAIM_SECONDS (its write, had it committed, would have completed it).
        "claims_in_progress": int(in_progress["n"]) if in_progress else 0,
    }
    return checks, totals


def check(database_dsn: str, out_dir: Path | None, merchant_id: str | None = None) -> ConsistencyReport:
    """All checks; `merchant_id`: the merchant whose every write carried an Idempotency-Key."""
    with psycopg.connect(database_dsn, row_factory=dict_row) as conn:
        checks = {name: int(conn.execute(query).fetchone()["n"]) for name, query in MONEY_CHECKS.items()}  # type: ignore[index]
        answer_checks, totals = _answer_checks(conn, merchant_id)
        checks.update(answer_checks)
        if out_dir is not None:
            seen = _seen(out_dir)
            checks.update(_client_checks(conn, seen))
            totals.update({f"client_saw_{kind}": len(items) for kind, items in seen.items()})
        for table in ("charges", "refunds", "events", "idempotency_keys"):
            totals[table] = int(conn.execute(f"SELECT count(*) AS n FROM {table}").fetchone()["n"])  # type: ignore[index]
    checks.update(_reconciliation(database_dsn))
    return ConsistencyReport(checks, totals)
