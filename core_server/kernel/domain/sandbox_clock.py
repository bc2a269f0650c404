"""The sandbox clock rules (DESIGN §9, §10.5): a merchant's TEST time is real time plus an offset, forward
only, and one advance moves it at most as far as the merchant's limit (two intervals of its shortest live
price, 2 years with none) — so one call never replays thousands of billing periods.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from core_server.kernel.domain.errors import ParameterInvalid

MAX_UNIX_SECONDS = 253_402_300_799  # 9999-12-31T23:59:59Z: beyond it a datetime cannot hold the moment


@dataclass(frozen=True, slots=True)
class AdvanceLimit:
    """The furthest TEST moment one advance may reach, and why (named in the refusal's message)."""

    latest: datetime
    reason: str


def default_advance_limit(test_now: datetime) -> AdvanceLimit:
    """2 years (730 days) from the TEST now: the limit when no subscription of the merchant is live."""
    return AdvanceLimit(test_now + timedelta(days=730), "at most 2 years when it has no live subscription")


def check_advance_within(to: int, limit: AdvanceLimit) -> None:
    """Refuses an advance past `limit` with parameter_invalid on `to`, the message naming the limit."""
    latest = int(limit.latest.timestamp())
    if to > latest:
        raise ParameterInvalid(
            f"One advance of the test clock may move it {limit.reason}: to ≤ {latest}.", param="to"
        )


def offset_after_advance(real_now: datetime, current_offset: timedelta, to: int) -> timedelta:
    """The offset that makes TEST time `to` (Unix seconds) at `real_now`, and keeps running from there.

    `to` before the current TEST second → parameter_invalid; `to` equal to it → no change.
    """
    if not 0 <= to <= MAX_UNIX_SECONDS:
        raise ParameterInvalid("to must be a Unix timestamp in seconds.", param="to")
    test_now = real_now + current_offset
    current_second = int(test_now.timestamp())
    if to < current_second:
        raise ParameterInvalid(
            f"The test clock only moves forward: to ({to}) is before its current time ({current_second}).",
            param="to",
        )
    if to == current_second:
        return current_offset
    return datetime.fromtimestamp(to, tz=UTC) - real_now
