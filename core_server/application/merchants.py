"""Merchant sign-up, login (JWT issuance) and profile."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Protocol

from core_server.application.ports import Clock, IdCollision
from core_server.domain.charge_input import validate_email
from core_server.domain.errors import NotFound, ParameterInvalid, Unauthenticated
from core_server.domain.ids import IdSpaceExhausted, id_candidates
from core_server.domain.merchant import (
    Merchant,
    Profile,
    check_password,
    hash_password,
    validate_profile_field,
    verify_password,
)

BAD_CREDENTIALS = "Invalid e-mail or password."


class EmailTaken(Exception):
    """The e-mail belongs to another merchant."""


class MerchantRepository(Protocol):
    async def insert(self, merchant: Merchant) -> None:
        """Raises EmailTaken or IdCollision."""

    async def get(self, merchant_id: str) -> Merchant | None: ...

    async def find_by_email(self, email: str) -> Merchant | None: ...

    async def update_profile(self, merchant_id: str, profile: Profile) -> None: ...


class TokenIssuer(Protocol):
    def issue(self, merchant_id: str) -> tuple[str, int]:
        """(token, lifetime in seconds)."""


class MerchantService:
    def __init__(self, merchants: MerchantRepository, tokens: TokenIssuer, clock: Clock) -> None:
        self._merchants = merchants
        self._tokens = tokens
        self._clock = clock

    async def create(self, email: str, password: str, business_name: str) -> Merchant:
        validate_email(email, "email")
        check_password(password)
        validate_profile_field("business_name", business_name)
        # scrypt is deliberately slow: keep it off the event loop.
        password_hash = await asyncio.to_thread(hash_password, password)
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

    async def issue_token(self, email: str, password: str) -> tuple[str, int]:
        merchant = await self._merchants.find_by_email(email)
        # Verify against a dummy hash for unknown e-mails too, so timing does not reveal which exist.
        stored = merchant.password_hash if merchant else _DUMMY_HASH
        ok = await asyncio.to_thread(verify_password, password, stored)
        if merchant is None or not ok:
            raise Unauthenticated(BAD_CREDENTIALS, code="invalid_credentials")
        return self._tokens.issue(merchant.id)

    async def get(self, merchant_id: str) -> Merchant:
        merchant = await self._merchants.get(merchant_id)
        if merchant is None:
            # A JWT for a merchant that no longer exists.
            raise Unauthenticated("This token's merchant does not exist.", code="token_invalid")
        return merchant

    async def update(self, merchant_id: str, changes: dict[str, str]) -> Merchant:
        merchant = await self.get(merchant_id)
        checked = {name: validate_profile_field(name, value) for name, value in changes.items()}
        profile = replace(merchant.profile, **checked)
        await self._merchants.update_profile(merchant_id, profile)
        return replace(merchant, profile=profile)


_DUMMY_HASH = hash_password("not-a-real-password")


__all__ = ["EmailTaken", "MerchantRepository", "MerchantService", "NotFound", "TokenIssuer"]
