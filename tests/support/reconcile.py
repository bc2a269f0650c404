"""Ends a fault or race test with the ledger's own proof (issue 16): `make reconcile --direct` on its DSN.

The half-written audit (table_audit.py) says each change committed whole; reconciliation says the money
it moved reached the balance: every capture, refund, dispute, paid invoice and payout has its balance
transaction, and every balance equals the sum of its rows. It runs the operator's command itself, as a
subprocess on the test's DSN, so the test proves what an operator would run after the same incident.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "reconcile.py"
TIMEOUT_SECONDS = 300


def reconcile_output(dsn: str) -> subprocess.CompletedProcess[str]:
    """`scripts/reconcile.py --direct --quiet` on `dsn`: exit 0 sound, 1 findings, 2 unreadable."""
    return subprocess.run(
        [sys.executable, str(SCRIPT), "--direct", "--quiet"],
        env={**os.environ, "DATABASE_URL": dsn},
        capture_output=True,
        text=True,
        timeout=TIMEOUT_SECONDS,
        check=False,
    )


def assert_reconciles(dsn: str) -> None:
    """Zero findings on every merchant, environment and currency of `dsn`; else the findings, one a line."""
    run = reconcile_output(dsn)
    findings = [line for line in run.stdout.splitlines() if line.startswith("MISMATCH")]
    assert run.returncode == 0 and not findings, (
        f"reconciliation exited {run.returncode} with {len(findings)} finding(s):\n{run.stdout}{run.stderr}"
    )


def reconcile_through_core(core_address: str) -> subprocess.CompletedProcess[str]:
    """`make reconcile` as an operator runs it against a running core (its LedgerService.Reconcile)."""
    env = {**os.environ, "CORE_GRPC_ADDR": core_address}
    env.pop("CORE_AUTH_TOKEN", None)
    return subprocess.run(
        [sys.executable, str(SCRIPT)],
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_SECONDS,
        check=False,
    )


def assert_merchant_reconciles(core_address: str, merchant_id: str) -> str:
    """The merchant's balances are listed and none of its rows, customer balances or invoices is named;
    other tests' planted findings (exit 1) are theirs. Returns the command's output."""
    run = reconcile_through_core(core_address)
    assert run.returncode in (0, 1), run.stderr
    assert f"{merchant_id} test " in run.stdout, run.stdout
    named = [line for line in run.stdout.splitlines() if line.startswith("MISMATCH") and merchant_id in line]
    assert named == [], run.stdout
    return run.stdout
