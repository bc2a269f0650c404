"""The sandbox clock rule (DESIGN §9): a merchant's TEST time is real time plus an offset, forward only."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from core_server.kernel.domain.errors import ParameterInvalid

MAX_UNIX_SECONDS = 253_402_300_799  # 9999-12-31T23:59:59Z: beyond it a datetime cannot hold the moment


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
