"""Merchant sign-up, login (JWT issuance) and profile."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import timedelta
from typing import Protocol, TypeVar

from connect import errors

from core_server.kernel.application.ports import Clock
from core_server.kernel.domain.errors import (
    NotFound,
    ParameterInvalid,
    ParameterMissing,
    RateLimited,
    Unauthenticated,
)
from core_server.kernel.domain.ids import IdCollision, IdSpaceExhausted, id_candidates
from core_server.kernel.domain.input_rules import validate_email
from core_server.merchants.domain.login_throttle import (
    BASE_DELAY,
    KNOWN_ADDRESS_FOR,
    LoginRecord,
    account_key,
    address_group,
    address_key,
    after_attempt,
    forget_after,
    wait_before_attempt,
    without_one,
)
from core_server.merchants.domain.merchant import (
    Merchant,
    Profile,
    check_password,
    hash_password,
    validate_profile_field,
    verify_password,
)

BAD_CREDENTIALS = "Invalid e-mail or password."
PASSWORD_WRONG = "current_password is not this account's password."
THROTTLED = "Too many failed logins for this e-mail; retry after {seconds} s."
# Attempts at counting one login before giving up: each retry means another attempt on the same account
# was counted meanwhile, so under such contention the caller is throttled for the base delay.
_COUNT_TRIES = 3

T = TypeVar("T")


class EmailTaken(Exception):
    """The e-mail belongs to another merchant."""


class MerchantRepository(Protocol):
    async def insert(self, merchant: Merchant) -> None:
        """Raises EmailTaken or IdCollision."""

    async def get(self, merchant_id: str) -> Merchant | None: ...

    async def find_by_email(self, email: str) -> Merchant | None: ...

    async def update_profile(self, merchant_id: str, profile: Profile) -> None: ...

    async def change_password(self, merchant_id: str, password_hash: str) -> int:
        """Stores the hash and bumps the merchant's token version; returns the new version."""


class LoginAttempts(Protocol):
    """The login throttle's records, shared by every core (a Redis adapter in merchants/storage)."""

    async def read(self, key: str) -> LoginRecord: ...

    async def replace(self, key: str, seen: LoginRecord, updated: LoginRecord, keep: timedelta) -> bool:
        """Stores `updated` (kept for `keep`) only if the record is still `seen`; False otherwise."""

    async def reset(self, key: str) -> None: ...

    async def is_known(self, key: str) -> bool:
        """Whether the (account, address) pair of `key` signed in successfully within its remembered time."""

    async def remember(self, key: str, keep: timedelta) -> None:
        """Marks the pair of `key` as known for `keep` (from now; a later success extends it)."""


class KdfRunner(Protocol):
    """Runs the password KDF off the event loop, in a bounded pool (core_server/security/kdf_pool.py);
    raises when the pool is saturated rather than queueing without bound."""

    def check_room(self, owner: str = "") -> None:
        """Raises if a hash for `owner` (a client address group; "" unattributed) could not be admitted
        right now (cheap; checked before any I/O)."""

    async def run(self, fn: Callable[..., T], /, *args: object, owner: str = "") -> T: ...


class TokenIssuer(Protocol):
    def issue(self, merchant_id: str, version: int = 0) -> tuple[str, int]:
        """(token, lifetime in seconds); `version` is the merchant's token version (DESIGN §10.9)."""


class MerchantService:
    def __init__(
        self,
        merchants: MerchantRepository,
        tokens: TokenIssuer,
        clock: Clock,
        *,
        attempts: LoginAttempts,
        kdf: KdfRunner,
    ) -> None:
        self._merchants = merchants
        self._tokens = tokens
        self._clock = clock
        self._attempts = attempts
        self._kdf = kdf

    async def create(
        self, email: str, password: str, business_name: str, client_address: str = ""
    ) -> Merchant:
        validate_email(email, "email")
        check_password(password)
        validate_profile_field("business_name", business_name)
        owner = address_group(client_address)
        self._kdf.check_room(owner)
        # scrypt is deliberately slow: keep it off the event loop, in the bounded KDF pool, where one
        # client address holds at most its share (KdfPool).
        password_hash = await self._kdf.run(hash_password, password, owner=owner)
        now = self._clock.now().replace(microsecond=0)
        for merchant_id in id_candidates("acct_", 24):
            merchant = Merchant(
                id=merchant_id,
                email=email,
                password_hash=password_hash,
                profile=Profile(business_name=business_name),
                created=now,
            )
            try:
                await self._merchants.insert(merchant)
            except IdCollision:
                continue
            except EmailTaken as exc:
                raise ParameterInvalid("A merchant with this e-mail already exists.", param="email") from exc
            return merchant
        raise IdSpaceExhausted("ten merchant id collisions in a row")

    async def issue_token(self, email: str, password: str, client_address: str = "") -> tuple[str, int]:
        """`client_address` is the caller's address as the gateway determined it (DESIGN §10.9): failures
        are counted per (account, address), and an address that signed in recently is never slowed by
        other addresses' failures (login_throttle.py)."""
        # Throttled before anything else: a throttled guess is never checked, so it cannot succeed, and
        # known and unknown e-mails are counted alike (login_throttle.py).
        pair = address_key(email, client_address)
        owner = address_group(client_address)
        # A flood that fills the KDF pool (or this address's share of it) is shed before it costs a Redis
        # or PostgreSQL round trip (and before it is counted: a shed attempt checks nothing).
        self._kdf.check_room(owner)
        known = await self._attempts.is_known(pair)
        if not known:
            # Unknown addresses also answer to the account's record of their failures together.
            await self._count_attempt(account_key(email))
        await self._count_attempt(pair)
        merchant = await self._merchants.find_by_email(email)
        # Verify against a dummy hash for unknown e-mails too, so timing does not reveal which exist.
        stored = merchant.password_hash if merchant else _DUMMY_HASH
        ok = await self._kdf.run(verify_password, password, stored, owner=owner)
        if merchant is None or not ok:
            raise Unauthenticated(BAD_CREDENTIALS, code=errors.INVALID_CREDENTIALS.code)
        # The address's own record restarts and it becomes known. The account's record of unknown
        # addresses only takes this attempt back: the other addresses' guessing goes on being slowed.
        await self._attempts.reset(pair)
        await self._attempts.remember(pair, KNOWN_ADDRESS_FOR)
        if not known:
            await self._take_back(account_key(email))
        return self._tokens.issue(merchant.id, merchant.token_version)

    async def _take_back(self, key: str) -> None:
        """Uncounts one attempt that succeeded; under contention it may stay counted (a stricter slip)."""
        for _ in range(_COUNT_TRIES):
            record = await self._attempts.read(key)
            if record.failures == 0:
                return
            updated = without_one(record)
            if await self._attempts.replace(key, record, updated, forget_after(updated)):
                return

    async def _count_attempt(self, key: str) -> None:
        """Counts this attempt as a failure up front (a success resets it), or raises RateLimited."""
        for _ in range(_COUNT_TRIES):
            record = await self._attempts.read(key)
            now = self._clock.now()
            wait = wait_before_attempt(record, now)
            if wait > timedelta(0):
                raise _throttled(wait)
            updated = after_attempt(record, now)
            if await self._attempts.replace(key, record, updated, forget_after(updated)):
                return
        raise _throttled(BASE_DELAY)

    async def get(self, merchant_id: str) -> Merchant:
        merchant = await self._merchants.get(merchant_id)
        if merchant is None:
            # A JWT for a merchant that no longer exists.
            raise Unauthenticated("This token's merchant does not exist.", code=errors.TOKEN_INVALID.code)
        return merchant

    async def update(
        self, merchant_id: str, changes: dict[str, str], current_password: str | None = None
    ) -> Merchant:
        merchant = await self.get(merchant_id)
        checked = {name: validate_profile_field(name, value) for name, value in changes.items()}
        if "payout_account_number" in checked:
            # Where the money goes: a dashboard token alone (stolen, left on a shared machine) must not
            # be enough to change it (DESIGN §10.9).
            await self._confirm_password(merchant, current_password)
        profile = replace(merchant.profile, **checked)
        await self._merchants.update_profile(merchant_id, profile)
        return replace(merchant, profile=profile)

    async def change_password(self, merchant_id: str, current: str | None, new: str | None) -> Merchant:
        """The only place the password changes, and so where the token version is bumped: every dashboard
        token issued before is refused from now on (DESIGN §10.9)."""
        merchant = await self.get(merchant_id)
        if not new:
            raise ParameterMissing("new_password")
        try:
            check_password(new)
        except ParameterInvalid as exc:
            message = str(exc).replace("password", "new_password", 1)
            raise ParameterInvalid(message, param="new_password") from exc
        await self._confirm_password(merchant, current)
        password_hash = await self._kdf.run(hash_password, new)
        version = await self._merchants.change_password(merchant_id, password_hash)
        return replace(merchant, password_hash=password_hash, token_version=version)

    async def _confirm_password(self, merchant: Merchant, password: str | None) -> None:
        if not password:
            raise ParameterMissing("current_password")
        self._kdf.check_room()
        # Counted with the account's logins: a stolen token is no way around the login throttle.
        key = account_key(merchant.email)
        await self._count_attempt(key)
        # scrypt in the bounded KDF pool, like a login: a flood of guesses cannot starve the loop.
        if not await self._kdf.run(verify_password, password, merchant.password_hash):
            raise ParameterInvalid(PASSWORD_WRONG, param="current_password")
        # Only this attempt is taken back: a right password must not wipe other addresses' guessing.
        await self._take_back(key)


def _throttled(wait: timedelta) -> RateLimited:
    seconds = max(1, -(-wait // timedelta(seconds=1)))  # whole seconds, rounded up
    return RateLimited(
        THROTTLED.format(seconds=seconds), timedelta(seconds=seconds), code=errors.LOGIN_THROTTLED.code
    )


_DUMMY_HASH = hash_password("not-a-real-password")


__all__ = [
    "EmailTaken",
    "KdfRunner",
    "LoginAttempts",
    "MerchantRepository",
    "MerchantService",
    "NotFound",
    "TokenIssuer",
]
