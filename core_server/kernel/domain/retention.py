"""Retention: how long the rows that only ever grow are kept, and which of them are old.

Idempotency keys are kept exactly their 24 h lifetime (after it a retry runs again, so the row serves
nobody). Events are kept `EVENT_RETENTION_DAYS` (30 by default), and their deliveries and attempts go
with them: an attempt is never older than its event. An event one of whose deliveries is still pending
is kept until that delivery settles (succeeds or fails for good), however old: purging it would drop a
delivery the merchant is still owed. A purge deletes in batches, so no statement grows with the backlog.
"""

from __future__ import annotations

from datetime import datetime, timedelta

IDEMPOTENCY_KEY_LIFETIME = timedelta(hours=24)
DEFAULT_EVENT_RETENTION = timedelta(days=30)
PURGE_BATCH = 1000


def cutoff(now: datetime, keep: timedelta) -> datetime:
    """The instant at or before which a row kept for `keep` is old at `now`.

    Rows are judged by their own stored time (an event's is its merchant's time, so a sandbox event
    stamped ahead by a test clock is kept that much longer, never less).
    """
    if keep <= timedelta(0):
        raise ValueError("a retention period must be positive")
    return now - keep
