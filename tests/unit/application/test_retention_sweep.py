"""RetentionSweep's loop: batch after batch until a short one, the cut-off from the injected clock, and a
lost job lease ends the pass."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from core_server.kernel.application.clocks import SettableClock
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


class CountingLease:
    def __init__(self, renewals: int) -> None:
        self.renewals_left = renewals

    @property
    def ttl_ms(self) -> int:
        return 1000

    async def acquire(self, wait_s: float) -> bool:
        return True

    async def renew(self) -> bool:
        self.renewals_left -= 1
        return self.renewals_left >= 0

    async def release(self) -> None:
        return None


def no_leases(kind: str, entity_id: str) -> CountingLease:
    return CountingLease(0)


def test_the_cutoff_is_now_less_the_period_and_a_period_must_be_positive() -> None:
    assert cutoff(NOW, timedelta(days=30)) == NOW - timedelta(days=30)
    with pytest.raises(ValueError):
        cutoff(NOW, timedelta(0))


async def test_batches_until_a_short_one_and_keeps_rows_inside_the_period() -> None:
    keep = timedelta(days=30)
    old = [NOW - keep - timedelta(minutes=n) for n in range(25)]
    young = [NOW - keep + timedelta(seconds=1), NOW]
    purger = ListPurger(old + young + [NOW - keep])  # exactly at the cut-off is old
    sweep = RetentionSweep(
        [RetentionRule("rows", keep, purger)], SettableClock(NOW), no_leases, interval=1, batch=10
    )
    assert await sweep.run_once() == {"rows": 26}
    assert purger.calls == 3  # 10, 10, 6
    assert purger.stamps == sorted(young)


async def test_a_lost_lease_ends_the_pass_after_the_batch_in_hand() -> None:
    keep = timedelta(hours=24)
    purger = ListPurger([NOW - keep - timedelta(seconds=n) for n in range(50)])
    sweep = RetentionSweep(
        [RetentionRule("rows", keep, purger)], SettableClock(NOW), no_leases, interval=1, batch=10
    )
    assert await sweep.run_once(CountingLease(renewals=2)) == {"rows": 30}
    assert len(purger.stamps) == 20
