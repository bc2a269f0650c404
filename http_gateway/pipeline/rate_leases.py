"""Rate-limit tokens leased from the shared Redis window in small batches: one gateway's share of a window.

The window's counter in Redis is the one global count; a gateway takes `size` positions of it at once
(INCRBY) and hands them out to its requests one by one, so most requests need no Redis round trip. A
request is admitted when its position is within the limit, so every gateway together never admits more
than the limit in a window; what a batch costs is the other way round: positions a gateway leased but
did not use before the window ended are lost to the others, at most one batch per gateway per window.

Sizes stay small and follow the demand this gateway saw for the subject in the window before: a quiet
subject leases one position per request (exactly the old per-request count), a busy one up to
`LEASE_MAX`, never more than a tenth of its limit. Requests waiting for a lease in flight are covered by
the next one. Pure bookkeeping: the caller (pipeline/rate_limit.py) does the Redis call.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

# A batch is at most this many positions, and at most a tenth of the limit (the share a gateway may
# leave unused at the end of a window).
LEASE_MAX = 32
LIMIT_SHARE = 10
# A batch lasts about 1/DEMAND_SHARE of a second at the rate seen in the window before.
DEMAND_SHARE = 16


def lease_size(limit: int, previous_demand: int, waiting: int) -> int:
    """Positions to lease: the demand-sized batch, or every request waiting for it if more."""
    cap = max(1, min(LEASE_MAX, limit // LIMIT_SHARE))
    batch = min(cap, max(1, previous_demand // DEMAND_SHARE))
    return max(batch, waiting)


@dataclass(slots=True)
class WindowLease:
    """One subject's positions in one window on this gateway."""

    window: int
    previous_demand: int = 0  # requests of this subject here in the window before
    next: int = 1  # the next leased position to hand out
    end: int = 0  # the last leased position (next > end: none left)
    total: int = 0  # the window's global count as of this gateway's last lease
    taken: int = 0  # requests of this subject here in this window, admitted or not
    waiting: int = 0  # requests waiting for the lease in flight
    lease: asyncio.Future[None] | None = None

    def take(self) -> int | None:
        """The next leased position (a request's count in the window), or None when none is left."""
        if self.next > self.end:
            return None
        position = self.next
        self.next += 1
        self.taken += 1
        return position

    def exhausted(self, limit: int) -> bool:
        """The window's count already reached the limit: every later request of this window is refused
        (the counter only grows), here and in every other gateway."""
        return self.total >= limit

    def refuse(self) -> None:
        self.taken += 1

    def grant(self, total: int, size: int) -> None:
        """Redis answered INCRBY size with `total`: positions total-size+1 … total are this gateway's."""
        self.next, self.end = total - size + 1, total
        self.total = max(self.total, total)
