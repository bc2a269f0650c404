"""Applies the ordered SQL migrations once, recording each; safe when several cores start at once."""

from __future__ import annotations

import logging
from importlib import resources

from core_server.db.pool import DbPool

logger = logging.getLogger(__name__)

# Any constant works: it only has to be the same in every core process.
_MIGRATION_LOCK = 7_413_900_001


def migration_files() -> list[tuple[str, str]]:
    folder = resources.files("core_server.db").joinpath("migrations")
    files = sorted((f.name, f.read_text()) for f in folder.iterdir() if f.name.endswith(".sql"))
    return files


async def apply_migrations(pool: DbPool) -> list[str]:
    """Returns the names applied now; an advisory lock makes concurrent starters wait, not race."""
    applied_now: list[str] = []
    async with pool.connection() as conn, conn.transaction():
        # A migration may rewrite a large table: the pool's statement_timeout bounds requests, not this.
        await conn.execute("SET LOCAL statement_timeout = 0")
        await conn.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATION_LOCK,))
        await conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations ("
            " name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())"
        )
        cursor = await conn.execute("SELECT name FROM schema_migrations")
        done = {row["name"] for row in await cursor.fetchall()}
        for name, sql in migration_files():
            if name in done:
                continue
            await conn.execute(sql)  # a trusted file shipped with the package, not built from input
            await conn.execute("INSERT INTO schema_migrations (name) VALUES (%s)", (name,))
            applied_now.append(name)
            logger.info("applied migration %s", name)
    return applied_now
