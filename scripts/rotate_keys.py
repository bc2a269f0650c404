"""Re-seals every stored secret under DATA_ENCRYPTION_KEY: `make rotate-keys` (docs/security.md
encryption key).

    rotate_keys.py [--batch 100]

Reads the core's settings from the environment (DATA_ENCRYPTION_KEY the new key, DATA_ENCRYPTION_KEYS the
old ones, DATABASE_URL, JWT_SIGNING_KEY). Safe while the stack serves and resumable: rerun it after a
stop. Exits 1 when some value opened under no configured key (their row ids are printed), else 0.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from core_server.config import ConfigError, Settings  # noqa: E402
from core_server.db.migrate import apply_migrations  # noqa: E402
from core_server.db.pool import open_pool  # noqa: E402
from core_server.key_rotation import rotate_column  # noqa: E402
from core_server.merchants.storage.merchant_repository import PgMerchantRepository  # noqa: E402
from core_server.sealed_columns import SEALED_COLUMNS  # noqa: E402
from core_server.sealing import sealers  # noqa: E402 - after the path set-up above
from core_server.security.payout_account import PURPOSE as PAYOUT_ACCOUNT  # noqa: E402
from core_server.security.payout_account import PayoutAccountBox  # noqa: E402


def say(line: str) -> None:
    print(line, flush=True)


async def rotate(settings: Settings, batch: int) -> int:
    boxes = sealers(settings)
    pool = await open_pool(
        settings.database_url, pooled=bool(settings.database_pooler), min_size=1, max_size=2
    )
    try:
        # A rotation may run before any core of this version has started: the key-id columns must exist.
        await apply_migrations(pool)
        # Payout account numbers still in clear (from before migration 0023, no core started since).
        accounts = PgMerchantRepository(pool, PayoutAccountBox(boxes[PAYOUT_ACCOUNT]))
        say(f"sealed {await accounts.seal_clear_accounts()} clear payout account number(s)")
        say(f"re-sealing under key {boxes['webhook-secret'].current_id}")
        resealed = unreadable = 0
        for column in SEALED_COLUMNS:
            count = await rotate_column(pool, column, boxes[column.purpose], batch=batch, report=say)
            resealed += count.resealed
            unreadable += count.unreadable
            say(f"{column.name}: done ({count.resealed} re-sealed, {count.raced} changed meanwhile)")
    finally:
        await pool.close()
    say(f"re-sealed {resealed} value(s); {unreadable} unreadable")
    return 1 if unreadable else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=100, help="rows per batch (default 100)")
    args = parser.parse_args()
    if args.batch < 1:
        parser.error("--batch must be at least 1")
    try:
        settings = Settings.from_env()
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return asyncio.run(rotate(settings, args.batch))


if __name__ == "__main__":
    sys.exit(main())
