"""The per-account login throttle: how long an account waits after its failed logins (README, Security).

Pure rule, no I/O: the application reads an account's record from a shared store (Redis, so every core
and every gateway counts the same failures), asks `wait_before_attempt`, and only then checks the
password. Every attempt is counted before its password is checked (`after_attempt`) and a success
clears the record, so parallel guesses cannot slip past the schedule between a check and its count.

Schedule: the first FREE_FAILURES attempts of an account are never delayed; after them each further
attempt waits BASE_DELAY doubled per failure beyond the free ones (1 s, 2 s, 4 s, ...), capped at
MAX_DELAY (15 min). A record is forgotten FORGET_AFTER after its last failure.

The key is the e-mail as typed, case-insensitively and without surrounding blanks, whether or not an
account has it: an unknown e-mail is throttled exactly like a known one, so the throttle never reveals
which e-mails exist.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime, timedelta

FREE_FAILURES = 5
BASE_DELAY = timedelta(seconds=1)
MAX_DELAY = timedelta(minutes=15)
FORGET_AFTER = timedelta(hours=1)


@dataclass(frozen=True, slots=True)
class LoginRecord:
    """An account's counted attempts since its last success, and when the last one was counted."""

    failures: int = 0
    last_failure: datetime | None = None


NO_FAILURES = LoginRecord()


def account_key(email: str) -> str:
    """The throttle key of an e-mail: case-insensitive, hashed so the shared store holds no addresses."""
    return hashlib.sha256(email.strip().lower().encode()).hexdigest()


def backoff(failures: int) -> timedelta:
    """How long after its last failure an account with `failures` failures must wait: 0 for the free ones,
    then 1 s, 2 s, 4 s, ... capped at MAX_DELAY."""
    if failures < FREE_FAILURES:
        return timedelta(0)
    doublings = failures - FREE_FAILURES
    # 2**20 s already exceeds the cap; stop doubling there so a huge count cannot overflow timedelta.
    if doublings >= 20:
        return MAX_DELAY
    delay: timedelta = BASE_DELAY * (2**doublings)
    return min(delay, MAX_DELAY)


def wait_before_attempt(record: LoginRecord, now: datetime) -> timedelta:
    """How long the next attempt must still wait (zero: it may go ahead)."""
    if record.last_failure is None:
        return timedelta(0)
    remaining = record.last_failure + backoff(record.failures) - now
    return max(remaining, timedelta(0))


def after_attempt(record: LoginRecord, now: datetime) -> LoginRecord:
    """The record once an attempt is counted (before its password is checked; a success then resets)."""
    return LoginRecord(failures=record.failures + 1, last_failure=now)


def forget_after(record: LoginRecord) -> timedelta:
    """How long the store keeps a record after its last failure: past its back-off, then FORGET_AFTER."""
    return backoff(record.failures) + FORGET_AFTER
