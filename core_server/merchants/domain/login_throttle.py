"""The per-account login throttle: how long an account waits after its failed logins (docs/security.md).

Pure rule, no I/O: the application reads an account's record from a shared store (Redis, so every core
and every gateway counts the same failures), asks `wait_before_attempt`, and only then checks the
password. Every attempt is counted before its password is checked (`after_attempt`) and a success
clears the record, so parallel guesses cannot slip past the schedule between a check and its count.

Schedule: the first FREE_FAILURES attempts of an account are never delayed; after them each further
attempt waits BASE_DELAY doubled per failure beyond the free ones (1 s, 2 s, 4 s, ...), capped at
MAX_DELAY (15 min). A record is forgotten FORGET_AFTER after its last failure.

Keys (DESIGN §10.9): failures are counted per (account, client address), so guesses from one address
never slow the owner at another. An address that signed in to the account successfully within
KNOWN_ADDRESS_FOR (30 days) is a known address: only its own record applies to it, so nobody can lock
the owner out from elsewhere. Every other address is throttled by its own record and also by the
account's record of failures from unknown addresses, so guessing spread over many addresses is slowed
for the account as a whole (the owner's known address excepted). IPv6 addresses count per /64, the
block one subscriber usually holds, so hopping within it gains nothing.

The account is the e-mail as typed, case-insensitively and without surrounding blanks, whether or not an
account has it: an unknown e-mail is throttled exactly like a known one, so the throttle never reveals
which e-mails exist.
"""

from __future__ import annotations

import hashlib
import ipaddress
from dataclasses import dataclass
from datetime import datetime, timedelta

FREE_FAILURES = 5
BASE_DELAY = timedelta(seconds=1)
MAX_DELAY = timedelta(minutes=15)
FORGET_AFTER = timedelta(hours=1)
KNOWN_ADDRESS_FOR = timedelta(days=30)
IPV6_GROUP_PREFIX = 64


@dataclass(frozen=True, slots=True)
class LoginRecord:
    """An account's counted attempts since its last success, and when the last one was counted."""

    failures: int = 0
    last_failure: datetime | None = None


NO_FAILURES = LoginRecord()


def account_key(email: str) -> str:
    """The account's key (its failures from unknown addresses): case-insensitive, hashed so the shared
    store holds no e-mail addresses."""
    return hashlib.sha256(email.strip().lower().encode()).hexdigest()


def address_group(address: str) -> str:
    """The client address as the throttle counts it: an IPv4 address (IPv4-mapped IPv6 included) as it
    is, an IPv6 address by its /64; anything unparsable as typed (an empty one when the caller named
    none)."""
    try:
        parsed = ipaddress.ip_address(address.strip())
    except ValueError:
        return address.strip()
    if isinstance(parsed, ipaddress.IPv6Address):
        if parsed.ipv4_mapped is not None:
            return str(parsed.ipv4_mapped)
        return str(ipaddress.IPv6Network(f"{parsed}/{IPV6_GROUP_PREFIX}", strict=False))
    return str(parsed)


def address_key(email: str, address: str) -> str:
    """The key of one (account, client address) pair: the account's key and the address's hash, joined
    so that no typed e-mail can produce another pair's key (nor the account's own)."""
    group = hashlib.sha256(address_group(address).encode()).hexdigest()
    return f"{account_key(email)}:{group}"


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


def without_one(record: LoginRecord) -> LoginRecord:
    """The account's record of unknown addresses once an attempt counted there succeeded: that attempt
    is taken back (it was no failure), the others' failures stay, and so does their back-off."""
    return LoginRecord(failures=max(record.failures - 1, 0), last_failure=record.last_failure)


def forget_after(record: LoginRecord) -> timedelta:
    """How long the store keeps a record after its last failure: past its back-off, then FORGET_AFTER."""
    return backoff(record.failures) + FORGET_AFTER
