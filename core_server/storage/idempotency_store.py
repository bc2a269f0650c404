"""PgIdempotencyStore: claims, stored answers and takeover of abandoned claims (DESIGN §6)."""

from __future__ import annotations

import hashlib
import hmac
from datetime import datetime, timedelta
from typing import Any

from psycopg import AsyncConnection
from psycopg.types.json import Jsonb
from psycopg_pool import AsyncConnectionPool

from core_server.application.ports import (
    ClaimOutcome,
    FirstClaim,
    IdempotencyCompletion,
    IdempotencyRecord,
    IdempotencyRequest,
    StoredError,
)
from core_server.storage.errors import wraps_psycopg_errors

KEY_LIFETIME = timedelta(hours=24)
CLAIM_LEASE = timedelta(seconds=60)
"""Longer than any request deadline: an in-progress claim older than this belongs to a dead process.

The default; the core passes IDEMPOTENCY_CLAIM_SECONDS (which must exceed ASK_TIMEOUT_SECONDS)."""

_CLAIM = """
INSERT INTO idempotency_keys AS k (scope, key, fingerprint, state, created_at, locked_until)
VALUES (%(scope)s, %(key)s, %(fingerprint)s, 'in_progress', %(now)s, %(locked_until)s)
ON CONFLICT (scope, key) DO UPDATE
   SET fingerprint = EXCLUDED.fingerprint, state = 'in_progress', response = NULL, error = NULL,
       created_at = EXCLUDED.created_at, locked_until = EXCLUDED.locked_until
 WHERE k.created_at <= %(expired_before)s
    OR (k.state = 'in_progress' AND k.locked_until < %(now)s AND k.fingerprint = EXCLUDED.fingerprint)
RETURNING 1
"""
_SELECT = """
SELECT fingerprint, state, response, error, locked_until FROM idempotency_keys
WHERE scope = %(scope)s AND key = %(key)s AND created_at > %(expired_before)s
"""
_COMPLETE = """
UPDATE idempotency_keys SET state = 'completed', response = %(response)s
WHERE scope = %(scope)s AND key = %(key)s AND state = 'in_progress'
"""
_STORE_ERROR = """
UPDATE idempotency_keys SET state = 'completed', error = %(error)s
WHERE scope = %(scope)s AND key = %(key)s AND state = 'in_progress'
"""
_RELEASE = "DELETE FROM idempotency_keys WHERE scope = %(scope)s AND key = %(key)s AND state = 'in_progress'"
# The claim of a create, as CTEs for the statement that writes the new object (FirstClaim): the key is
# taken *completed*, with its answer, or not at all. The advisory lock (held to the statement's end)
# turns a concurrent duplicate into `in progress` at once instead of a wait on the unique index; a key
# that exists already is left alone (`first_claimed` is empty) exactly as _CLAIM would leave it.
FIRST_CLAIM_CTES = """
first_claim_lock AS (
  SELECT pg_try_advisory_xact_lock(hashtextextended(%(idem_scope)s || ' ' || %(idem_key)s, 0)) AS got
),
first_claimed AS (
  INSERT INTO idempotency_keys AS k (scope, key, fingerprint, state, response, created_at, locked_until)
  SELECT %(idem_scope)s, %(idem_key)s, %(idem_fingerprint)s, 'completed', %(idem_response)s, %(idem_now)s,
         %(idem_locked_until)s
    FROM first_claim_lock WHERE got
  ON CONFLICT (scope, key) DO UPDATE
     SET fingerprint = EXCLUDED.fingerprint, state = 'completed', response = EXCLUDED.response, error = NULL,
         created_at = EXCLUDED.created_at, locked_until = EXCLUDED.locked_until
   WHERE k.created_at <= %(idem_expired_before)s
      OR (k.state = 'in_progress' AND k.locked_until < %(idem_now)s AND k.fingerprint = EXCLUDED.fingerprint)
  RETURNING 1
)"""
_PURGE = "DELETE FROM idempotency_keys WHERE created_at <= %(expired_before)s"


def _params(
    request: IdempotencyRequest, now: datetime, fingerprint: str, claim_lease: timedelta = CLAIM_LEASE
) -> dict[str, Any]:
    return {
        "scope": request.scope,
        "key": request.key,
        "fingerprint": fingerprint,
        "now": now,
        "locked_until": now + claim_lease,
        "expired_before": now - KEY_LIFETIME,
    }


async def complete_in_transaction(conn: AsyncConnection[Any], completion: IdempotencyCompletion) -> None:
    """Stores the answer inside the caller's transaction, so state and answer commit together."""
    await conn.execute(
        _COMPLETE, {"scope": completion.scope, "key": completion.key, "response": completion.response}
    )


class PgIdempotencyStore:
    def __init__(
        self,
        pool: AsyncConnectionPool,
        fingerprint_key: bytes | None = None,
        *,
        claim_lease: timedelta = CLAIM_LEASE,
    ) -> None:
        """`fingerprint_key` (the core always passes one) keys the stored fingerprints: the gateway's is a
        plain SHA-256 of the body, and a card payment's body is guessable from the stored last4, expiry and
        brand in ~10^8 tries, which would give back the card number and CVC."""
        self._pool = pool
        self._fingerprint_key = fingerprint_key
        self._claim_lease = claim_lease

    def _fingerprint(self, request: IdempotencyRequest) -> str:
        if self._fingerprint_key is None:
            return request.fingerprint
        return hmac.new(self._fingerprint_key, request.fingerprint.encode(), hashlib.sha256).hexdigest()

    def first_claim_params(self, claim: FirstClaim) -> dict[str, Any]:
        """The parameters of FIRST_CLAIM_CTES (prefixed `idem_`, beside the object's own)."""
        params = _params(claim.request, claim.now, self._fingerprint(claim.request), self._claim_lease)
        return {**{f"idem_{name}": value for name, value in params.items()}, "idem_response": claim.response}

    @wraps_psycopg_errors
    async def claim(self, request: IdempotencyRequest, now: datetime) -> IdempotencyRecord:
        fingerprint = self._fingerprint(request)
        params = _params(request, now, fingerprint, self._claim_lease)
        async with self._pool.connection() as conn:
            if await (await conn.execute(_CLAIM, params)).fetchone() is not None:
                return IdempotencyRecord(ClaimOutcome.CLAIMED)
            row = await (await conn.execute(_SELECT, params)).fetchone()
        return self._judge(fingerprint, row)

    @wraps_psycopg_errors
    async def check(self, request: IdempotencyRequest, now: datetime) -> IdempotencyRecord:
        fingerprint = self._fingerprint(request)
        async with self._pool.connection() as conn:
            row = await (await conn.execute(_SELECT, _params(request, now, fingerprint))).fetchone()
        if row is None:
            return IdempotencyRecord(ClaimOutcome.CLAIMED)
        if row["state"] == "in_progress" and row["locked_until"] < now and row["fingerprint"] == fingerprint:
            # Abandoned by a process that died mid-request: `claim` takes it over, so the early check must
            # not refuse the retry (it did, for the key's whole 24 h lifetime).
            return IdempotencyRecord(ClaimOutcome.CLAIMED)
        return self._judge(fingerprint, row)

    @staticmethod
    def _judge(fingerprint: str, row: dict[str, Any] | None) -> IdempotencyRecord:
        if row is None:
            # Deleted between our two statements (a failed first attempt released it): treat as busy.
            return IdempotencyRecord(ClaimOutcome.IN_PROGRESS)
        if row["fingerprint"] != fingerprint:
            return IdempotencyRecord(ClaimOutcome.MISMATCH)
        if row["state"] == "in_progress":
            return IdempotencyRecord(ClaimOutcome.IN_PROGRESS)
        error = StoredError.from_json(row["error"]) if row["error"] is not None else None
        return IdempotencyRecord(ClaimOutcome.REPLAY, response=row["response"], error=error)

    @wraps_psycopg_errors
    async def complete(self, completion: IdempotencyCompletion) -> None:
        async with self._pool.connection() as conn:
            await complete_in_transaction(conn, completion)

    @wraps_psycopg_errors
    async def store_error(self, request: IdempotencyRequest, error: StoredError) -> None:
        async with self._pool.connection() as conn:
            await conn.execute(
                _STORE_ERROR, {"scope": request.scope, "key": request.key, "error": Jsonb(error.to_json())}
            )

    @wraps_psycopg_errors
    async def release(self, request: IdempotencyRequest) -> None:
        async with self._pool.connection() as conn:
            await conn.execute(_RELEASE, {"scope": request.scope, "key": request.key})

    @wraps_psycopg_errors
    async def purge_expired(self, now: datetime) -> int:
        async with self._pool.connection() as conn:
            cursor = await conn.execute(_PURGE, {"expired_before": now - KEY_LIFETIME})
            return cursor.rowcount
