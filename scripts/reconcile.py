"""Proves the balance ledger: `make reconcile` (docs/ledger.md).

    reconcile.py [--direct] [--quiet]

Asks a running core's LedgerService.Reconcile (CORE_GRPC_ADDR, CORE_AUTH_TOKEN, CORE_TLS_CA_FILE as the
gateway reads them), or with --direct reads DATABASE_URL itself through the core's own use case (no core
needed). Prints one line per merchant, environment and currency — available, pending, the sum of the
rows and their count — then every finding (a capture, refund, dispute, paid invoice or payout without its
balance transaction, a row with other amounts, an orphan row, a payout whose settled rows do not add up
to it, a balance other than its rows). Exits 1
when there is a finding, 2 when the ledger could not be read, else 0. Read-only.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path

import grpc
import psycopg

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "protos"))

from connect.v1 import ledger_service_pb2, ledger_service_pb2_grpc  # noqa: E402 - after the path set-up

from core_server.db.errors import StorageError  # noqa: E402
from core_server.kernel.application.clocks import MerchantClocks, SystemClock  # noqa: E402
from core_server.kernel.storage.clock_offsets import PgClockOffsets  # noqa: E402
from core_server.ledger.application.ledger import LedgerService  # noqa: E402
from core_server.ledger.storage.ledger_repository import PgLedgerRepository  # noqa: E402
from core_server.ledger.transport.ledger_servicer import report_to_pb  # noqa: E402
from http_gateway.config import core_target  # noqa: E402

TIMEOUT_SECONDS = 120.0
ENVIRONMENTS = {1: "live", 2: "test"}


async def over_grpc(root_certificate: bytes | None) -> ledger_service_pb2.ReconcileResponse:
    target, options = core_target(os.environ.get("CORE_GRPC_ADDR", "127.0.0.1:50051"))
    if root_certificate is not None:
        creds = grpc.ssl_channel_credentials(root_certificate)
        channel = grpc.aio.secure_channel(target, creds, options=options)
    else:
        channel = grpc.aio.insecure_channel(target, options=options)
    token = os.environ.get("CORE_AUTH_TOKEN")
    metadata = [("authorization", f"Bearer {token}")] if token else []
    async with channel:
        stub = ledger_service_pb2_grpc.LedgerServiceStub(channel)
        response: ledger_service_pb2.ReconcileResponse = await stub.Reconcile(
            ledger_service_pb2.ReconcileRequest(), metadata=metadata, timeout=TIMEOUT_SECONDS
        )
        return response


async def direct(database_url: str, pooled: bool = False) -> ledger_service_pb2.ReconcileResponse:
    from core_server.db.pool import open_pool

    try:
        # One plain connection first: a database that is not there is known in seconds, quietly.
        probe = await psycopg.AsyncConnection.connect(database_url, connect_timeout=5)
        await probe.close()
    except psycopg.Error as exc:
        raise StorageError(str(exc)) from exc
    # Behind PgBouncer (DATABASE_POOLER) the pool keeps nothing in a session (docs/operations.md).
    pool = await open_pool(database_url, pooled=pooled, min_size=1, max_size=2)
    try:
        ledger = LedgerService(PgLedgerRepository(pool), MerchantClocks(SystemClock(), PgClockOffsets(pool)))
        return report_to_pb(await ledger.reconcile())
    finally:
        await pool.close()


def render(response: ledger_service_pb2.ReconcileResponse, quiet: bool) -> None:
    if not quiet:
        for line in response.balances:
            print(
                f"{line.merchant_id} {ENVIRONMENTS.get(line.environment, '?')} {line.currency}: "
                f"available {line.available} pending {line.pending} = rows {line.rows_net} "
                f"({line.row_count} rows)"
            )
    for finding in response.findings:
        print(
            f"MISMATCH {finding.kind} {finding.merchant_id} {ENVIRONMENTS.get(finding.environment, '?')} "
            f"{finding.currency} {finding.source}: {finding.detail}"
        )
    verdict = "ok" if response.ok else f"{len(response.findings)} finding(s)"
    print(f"reconciled {len(response.balances)} balance(s): {verdict}")


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--direct", action="store_true", help="read DATABASE_URL instead of asking a core")
    parser.add_argument("--quiet", action="store_true", help="print only findings and the verdict")
    args = parser.parse_args()
    try:
        if args.direct:
            database_url = os.environ.get("DATABASE_URL")
            if not database_url:
                print("error: --direct needs DATABASE_URL", file=sys.stderr)
                return 2
            pooled = bool(os.environ.get("DATABASE_POOLER", "").strip())
            response = asyncio.run(direct(database_url, pooled))
        else:
            ca_file = os.environ.get("CORE_TLS_CA_FILE")
            response = asyncio.run(over_grpc(Path(ca_file).read_bytes() if ca_file else None))
    except grpc.aio.AioRpcError as exc:
        print(f"error: the core answered {exc.code().name}: {exc.details()}", file=sys.stderr)
        return 2
    except (StorageError, psycopg.Error) as exc:
        # The database is down, unreachable or not migrated: "could not check" (2), never "findings" (1).
        reason = f"{type(exc).__name__}: {exc}".splitlines()[0]
        print(f"error: the ledger could not be read: {reason}", file=sys.stderr)
        return 2
    render(response, args.quiet)
    return 0 if response.ok else 1


if __name__ == "__main__":
    sys.exit(main())
