"""Re-sealing every stored secret under the current master key (scripts/rotate_keys.py).

Safe while the stack serves: each row is rewritten with a compare-and-set on its old ciphertext, in its
own statement, so a concurrent write (or a second rotation) wins and the row is left to it. Resumable: the
batches only pick rows not under the current key, so a rerun continues where a stopped one ended.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from core_server.db.pool import DbPool
from core_server.kernel.domain.sealed import Sealed
from core_server.sealed_columns import Row, SealedColumn
from core_server.security.secret_box import ENVELOPE_VERSION, SecretBox, SecretUnreadable


@dataclass(slots=True)
class ColumnCount:
    """`resealed` rows now under the current key; `raced` changed by someone else meanwhile (left to
    them); `unreadable` not opened by any configured key (listed by id, left as they are)."""

    resealed: int = 0
    raced: int = 0
    unreadable: int = 0


async def rotate_column(
    pool: DbPool,
    column: SealedColumn,
    box: SecretBox,
    *,
    batch: int,
    report: Callable[[str], None],
) -> ColumnCount:
    count = ColumnCount()
    cursor = ("", "")
    while True:
        params = {
            "k1": cursor[0],
            "k2": cursor[1],
            "current": box.current_id,
            "blob_prefix": ENVELOPE_VERSION + box.current_id.encode("ascii"),
            "limit": batch,
        }
        async with pool.connection() as conn:
            rows = await (await conn.execute(column.select_batch, params)).fetchall()
        if not rows:
            return count
        for row in rows:
            await _reseal_row(pool, column, box, row, count, report)
        cursor = (rows[-1]["k1"], rows[-1]["k2"])
        report(
            f"{column.name}: {count.resealed} re-sealed, {count.raced} changed meanwhile, "
            f"{count.unreadable} unreadable"
        )


async def _reseal_row(
    pool: DbPool,
    column: SealedColumn,
    box: SecretBox,
    row: Row,
    count: ColumnCount,
    report: Callable[[str], None],
) -> None:
    old = bytes(row["sealed"])
    context = column.context(row)
    try:
        if column.in_blob:
            new = box.reseal_blob(old, context)
            key_id = None
        else:
            resealed = box.reseal(Sealed(row["key_id"], old), context)
            new, key_id = (resealed.ciphertext, resealed.key_id) if resealed else (None, None)
    except SecretUnreadable as exc:
        count.unreadable += 1
        # The row's keys only: never the sealed bytes.
        report(f"{column.name}: row {row['k1']} {row['k2']} unreadable ({exc})".rstrip())
        return
    if new is None:
        return
    params = {"k1": row["k1"], "k2": row["k2"], "old": old, "new": new, "key_id": key_id}
    async with pool.connection() as conn:
        swapped = (await conn.execute(column.update, params)).rowcount == 1
    if swapped:
        count.resealed += 1
    else:
        count.raced += 1
