"""The job-claim rule every sweep follows (kernel/storage/job_claims.py writes it in SQL).

A claim holds a job for one core: until `claimed_until` (real time) and only while the claiming core
keeps beating (core_heartbeats, CORE_HEARTBEAT_LAPSE_SECONDS). A core killed mid-batch thus loses its
claims after the heartbeat lapse, not after the whole lease, and another core takes the work over; the
work itself stays exactly-once through its own fence (an actor's due check, a unique key, a claim token).
"""

from __future__ import annotations

from datetime import datetime, timedelta


def claim_is_free(
    claimed_until: datetime | None,
    claimed_by: str | None,
    last_beat: datetime | None,
    now: datetime,
    lapse: timedelta,
    asking: str | None = None,
) -> bool:
    """Whether core `asking` may claim a job at `now`: never claimed, released, lapsed, or its core's
    heartbeat (`last_beat`: None when the core has no row) is older than `lapse`. A claim naming no
    core (`claimed_by` None) follows its lease alone, and so does one of the asking core itself: a core
    that runs is alive to itself, whatever its last beat says (a beat that failed, a test clock moved)."""
    if claimed_until is None or claimed_until <= now:
        return True
    if claimed_by is None or claimed_by == asking:
        return False
    return last_beat is None or last_beat <= now - lapse
