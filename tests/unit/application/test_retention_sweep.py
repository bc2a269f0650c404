"""RetentionSweep's loop: batch after batch until a short one, the cut-off from the injected clock, and a
rule another core holds the claim of is left to it."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

import pytest

from core_server.kernel.application.clocks import SettableClock
from core_server.kernel.application.job_claims import JobClaim
from core_server.kernel.application.retention_sweep import RetentionRule, RetentionSweep
from core_server.kernel.domain.retention import cutoff

NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)


class ListPurger:
    """Rows as timestamps in a list; deletes the oldest old ones, `limit` at a time."""

    def __init__(self, stamps: list[datetime]) -> None:
        self.stamps = sorted(stamps)
        self.calls = 0

    async def purge_older_than(self, cut: datetime, limit: int) -> int:
        self.calls += 1
        old = [s for s in self.stamps if s <= cut][:limit]
        for stamp in old:
            self.stamps.remove(stamp)
        return len(old)


class HeldClaims:
    """Claims in memory: `held` rules belong to another core; a claim is released by its token only."""

    def __init__(self, held: Sequence[str] = ()) -> None:
        self.holders = dict.fromkeys(held, "another core")

    async def claim(self, claim: JobClaim, entities: Sequence[str]) -> list[str]:
        free = [entity for entity in entities if entity not in self.holders]
        self.holders.update(dict.fromkeys(free, claim.token))
        return free

    async def release(self, claim: JobClaim, entities: Sequence[str]) -> None:
        for entity in entities:
            if self.holders.get(entity) == claim.token:
                del self.holders[entity]


def test_the_cutoff_is_now_less_the_period_and_a_period_must_be_positive() -> None:
    assert cutoff(NOW, timedelta(days=30)) == NOW - timedelta(days=30)
    with pytest.raises(ValueError):
        cutoff(NOW, timedelta(0))


async def test_batches_until_a_short_one_and_keeps_rows_inside_the_period() -> None:
    keep = timedelta(days=30)
    old = [NOW - keep - timedelta(minutes=n) for n in range(25)]
    young = [NOW - keep + timedelta(seconds=1), NOW]
    purger = ListPurger(old + young + [NOW - keep])  # exactly at the cut-off is old
    claims = HeldClaims()
    sweep = RetentionSweep(
        [RetentionRule("rows", keep, purger)], SettableClock(NOW), claims, interval=1, batch=10
    )
    assert await sweep.run_once() == {"rows": 26}
    assert claims.holders == {}  # handed back
    assert purger.calls == 3  # 10, 10, 6
    assert purger.stamps == sorted(young)


async def test_a_rule_another_core_holds_is_left_to_it() -> None:
    keep = timedelta(hours=24)
    held, mine = (ListPurger([NOW - keep - timedelta(seconds=n) for n in range(50)]) for _ in range(2))
    claims = HeldClaims(held=["held"])
    rules = [RetentionRule("held", keep, held), RetentionRule("mine", keep, mine)]
    sweep = RetentionSweep(rules, SettableClock(NOW), claims, interval=1, batch=10)
    assert await sweep.run_once() == {"held": 0, "mine": 50}
    assert (held.calls, len(held.stamps)) == (0, 50)
    assert claims.holders == {"held": "another core"}
