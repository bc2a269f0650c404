"""API key management (JWT routes) and the resolution of bearer keys for the gateway."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from connect import errors

from core_server.kernel.application.ports import Clock
from core_server.kernel.domain.environment import Environment
from core_server.kernel.domain.errors import NotFound, ParameterInvalid, Unauthenticated
from core_server.kernel.domain.ids import IdCollision, IdSpaceExhausted, id_candidates
from core_server.merchants.domain.api_key import (
    MAX_ACTIVE_KEYS,
    MAX_KEY_NAME,
    ApiKey,
    key_kind,
    new_key_pair,
    secret_key_digest,
)


class KeyLimitReached(Exception):
    """The merchant already holds MAX_ACTIVE_KEYS active keys."""


class UnknownMerchant(Exception):
    """No merchant has this id (a validly signed token for a deleted or foreign merchant)."""


def unknown_merchant() -> Unauthenticated:
    """As MerchantService answers it: the token verified, but it names nobody."""
    return Unauthenticated("This token's merchant does not exist.", code=errors.TOKEN_INVALID.code)


class ApiKeyRepository(Protocol):
    async def insert_within_limit(self, key: ApiKey, secret_digest: str, limit: int) -> None:
        """Atomically refuses the insert (KeyLimitReached) when `limit` active keys exist; IdCollision;
        UnknownMerchant when the merchant does not exist."""

    async def merchant_exists(self, merchant_id: str) -> bool: ...

    async def list(self, merchant_id: str) -> list[ApiKey]: ...

    async def revoke(self, merchant_id: str, key_id: str, now: datetime) -> ApiKey | None: ...

    async def find_by_secret_digest(self, digest: str) -> ApiKey | None: ...

    async def find_by_publishable(self, key: str) -> ApiKey | None: ...


@dataclass(frozen=True, slots=True)
class ResolvedKey:
    merchant_id: str
    environment: Environment
    kind: str
    key_id: str


class ApiKeyService:
    def __init__(self, keys: ApiKeyRepository, clock: Clock) -> None:
        self._keys = keys
        self._clock = clock

    async def create(self, merchant_id: str, name: str, environment: str) -> ApiKey:
        if len(name) > MAX_KEY_NAME:
            raise ParameterInvalid(f"name must be at most {MAX_KEY_NAME} characters.", param="name")
        try:
            env = Environment(environment)
        except ValueError as exc:
            raise ParameterInvalid("environment must be 'live' or 'test'.", param="environment") from exc
        now = self._clock.now().replace(microsecond=0)
        for key_id in id_candidates("key_", 24):
            publishable, secret = new_key_pair(env)
            key = ApiKey(
                id=key_id,
                merchant_id=merchant_id,
                name=name,
                environment=env,
                publishable_key=publishable,
                secret_key_last4=secret[-4:],
                created=now,
                secret_key=secret,
            )
            try:
                await self._keys.insert_within_limit(key, secret_key_digest(secret), MAX_ACTIVE_KEYS)
            except IdCollision:
                continue
            except UnknownMerchant:
                raise unknown_merchant() from None
            except KeyLimitReached as exc:
                raise ParameterInvalid(
                    f"A merchant may hold at most {MAX_ACTIVE_KEYS} active API keys; revoke one first.",
                ) from exc
            return key
        raise IdSpaceExhausted("ten key id collisions in a row")

    async def list(self, merchant_id: str) -> list[ApiKey]:
        keys = await self._keys.list(merchant_id)
        # Only an empty list can belong to nobody: the extra look-up stays off the common path.
        if not keys and not await self._keys.merchant_exists(merchant_id):
            raise unknown_merchant()
        return keys

    async def revoke(self, merchant_id: str, key_id: str) -> ApiKey:
        key = await self._keys.revoke(merchant_id, key_id, self._clock.now().replace(microsecond=0))
        if key is None:
            if not await self._keys.merchant_exists(merchant_id):
                raise unknown_merchant()
            raise NotFound(f"No such API key: '{key_id[:100]}'", param="id")
        return key

    async def authenticate(self, presented: str) -> ResolvedKey:
        parsed = key_kind(presented)
        if parsed is None:
            raise Unauthenticated("Invalid API key provided.", code=errors.API_KEY_INVALID.code)
        kind, _ = parsed
        if kind == "secret":
            key = await self._keys.find_by_secret_digest(secret_key_digest(presented))
        else:
            key = await self._keys.find_by_publishable(presented)
        if key is None:
            raise Unauthenticated("Invalid API key provided.", code=errors.API_KEY_INVALID.code)
        if key.revoked:
            raise Unauthenticated("This API key has been revoked.", code=errors.API_KEY_REVOKED.code)
        return ResolvedKey(merchant_id=key.merchant_id, environment=key.environment, kind=kind, key_id=key.id)
