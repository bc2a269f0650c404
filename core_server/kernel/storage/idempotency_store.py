"""PgIdempotencyStore: claims, stored answers and takeover of abandoned claims (DESIGN §6)."""

from __future__ import annotations

import hashlib
import hmac
import logging
import secrets
from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any

import psycopg
from psycopg import AsyncConnection
from psycopg.types.json import Jsonb

from core_server.db.errors import StaleFence, wraps_psycopg_errors
from core_server.db.pool import DbPool
from core_server.kernel.application.ports import (
    ClaimOutcome,
    FirstClaim,
    IdempotencyCompletion,
    IdempotencyRecord,
    IdempotencyRequest,
)
from core_server.kernel.domain.ids import IdCollision
from core_server.kernel.domain.replays import StoredError
from core_server.kernel.domain.retention import IDEMPOTENCY_KEY_LIFETIME

logger = logging.getLogger(__name__)

KEY_LIFETIME = IDEMPOTENCY_KEY_LIFETIME
CLAIM_LEASE = timedelta(seconds=60)
"""Longer than any request deadline: an in-progress claim older than this belongs to a dead process.

The default; the core passes IDEMPOTENCY_CLAIM_SECONDS (which must exceed ASK_TIMEOUT_SECONDS)."""
HEARTBEAT_LAPSE = timedelta(seconds=3)
"""A claim whose core has not beaten in core_heartbeats for this long is abandoned at once (the default;
the core passes CORE_HEARTBEAT_LAPSE_SECONDS)."""


class ClaimTakenOver(StaleFence):
    """This run's Idempotency-Key claim was taken over (its lease or its core's heartbeat lapsed): the
    transaction that was to store its answer rolls back, so the change is made by the new owner only.

    A stale fence of the claim rather than of an entity: the client hears "retry" (503), and its retry
    replays the new owner's answer."""


# An in-progress claim of row `k` whose core stopped beating: abandoned before its lease lapses. A claim
# without a process (written before claims named one) follows its lease only.
_OWNER_DEAD = """(k.process IS NOT NULL AND NOT EXISTS (
        SELECT 1 FROM core_heartbeats h WHERE h.process = k.process AND h.last_seen > %(alive_since)s))"""
# A claim of the same request that may be taken over: its lease lapsed or its core is dead.
_ABANDONED = (
    "(k.state = 'in_progress' AND k.fingerprint = EXCLUDED.fingerprint"
    "\n        AND (k.locked_until < %(now)s OR " + _OWNER_DEAD + "))"
)
_CLAIM = (
    """
INSERT INTO idempotency_keys AS k (scope, key, fingerprint, state, created_at, locked_until, owner, process)
VALUES (%(scope)s, %(key)s, %(fingerprint)s, 'in_progress', %(now)s, %(locked_until)s, %(owner)s,
        %(process)s)
ON CONFLICT (scope, key) DO UPDATE
   SET fingerprint = EXCLUDED.fingerprint, state = 'in_progress', response = NULL, error = NULL,
       created_at = EXCLUDED.created_at, locked_until = EXCLUDED.locked_until, owner = EXCLUDED.owner,
       process = EXCLUDED.process
 WHERE k.created_at <= %(expired_before)s
    OR """
    + _ABANDONED
    + """
RETURNING 1
"""
)
# `owner_alive` is false when the claim's core stopped beating (the claim may be taken over).
_SELECT = (
    """
SELECT fingerprint, state, response, error, locked_until, NOT """
    + _OWNER_DEAD
    + """ AS owner_alive
  FROM idempotency_keys k
 WHERE scope = %(scope)s AND key = %(key)s AND created_at > %(expired_before)s
"""
)
# Each write below touches the claim only while it is still this run's (`owner`).
_COMPLETE = """
UPDATE idempotency_keys SET state = 'completed', response = %(response)s
WHERE scope = %(scope)s AND key = %(key)s AND state = 'in_progress' AND owner IS NOT DISTINCT FROM %(owner)s
"""
_STORE_ERROR = """
UPDATE idempotency_keys SET state = 'completed', error = %(error)s
WHERE scope = %(scope)s AND key = %(key)s AND state = 'in_progress' AND owner IS NOT DISTINCT FROM %(owner)s
"""
_RELEASE = """
DELETE FROM idempotency_keys
WHERE scope = %(scope)s AND key = %(key)s AND state = 'in_progress' AND owner IS NOT DISTINCT FROM %(owner)s
"""
# The claim of a create, as CTEs for the statement that writes the new object (FirstClaim): the key is
# taken *completed*, with its answer, or not at all. The advisory lock (held to the statement's end)
# turns a concurrent duplicate into `in progress` at once instead of a wait on the unique index; a key
# that exists already is left alone (`first_claimed` is empty) exactly as _CLAIM would leave it (an
# abandoned claim — lapsed lease or dead core — is taken over).
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
         created_at = EXCLUDED.created_at, locked_until = EXCLUDED.locked_until, owner = NULL, process = NULL
   WHERE k.created_at <= %(idem_expired_before)s
      OR (k.state = 'in_progress' AND k.fingerprint = EXCLUDED.fingerprint
          AND (k.locked_until < %(idem_now)s OR (k.process IS NOT NULL AND NOT EXISTS (
                 SELECT 1 FROM core_heartbeats h
                  WHERE h.process = k.process AND h.last_seen > %(idem_alive_since)s))))
  RETURNING 1
)"""


def _params(
    request: IdempotencyRequest,
    now: datetime,
    fingerprint: str,
    claim_lease: timedelta = CLAIM_LEASE,
    heartbeat_lapse: timedelta = HEARTBEAT_LAPSE,
) -> dict[str, Any]:
    return {
        "scope": request.scope,
        "key": request.key,
        "fingerprint": fingerprint,
        "now": now,
        "locked_until": now + claim_lease,
        "expired_before": now - KEY_LIFETIME,
        "alive_since": now - heartbeat_lapse,
    }


def _completion_params(completion: IdempotencyCompletion) -> dict[str, Any]:
    return {
        "scope": completion.scope,
        "key": completion.key,
        "response": completion.response,
        "owner": completion.owner,
    }


async def complete_in_transaction(conn: AsyncConnection[Any], completion: IdempotencyCompletion) -> None:
    """Stores the answer inside the caller's transaction, so state and answer commit together.

    Raises ClaimTakenOver (rolling the caller's transaction back) when the claim is no longer this run's."""
    cursor = await conn.execute(_COMPLETE, _completion_params(completion))
    if cursor.rowcount != 1:
        raise ClaimTakenOver(f"idempotency claim {completion.key} is no longer this run's")


async def insert_with_answer(
    pool: DbPool,
    insert: str,
    params: Mapping[str, Any],
    new_id: str,
    completion: IdempotencyCompletion | None,
) -> None:
    """A new row and (with an Idempotency-Key) the request's stored answer, in one transaction. Any
    unique violation means the freshly generated id is taken (IdCollision): the caller tries another.
    For rows with no other unique key; a row that has one (a customer's e-mail) tells them apart itself."""
    try:
        async with pool.connection() as conn, conn.transaction():
            await conn.execute(insert, params)
            if completion is not None:
                await complete_in_transaction(conn, completion)
    except psycopg.errors.UniqueViolation as exc:
        raise IdCollision(new_id) from exc


class PgIdempotencyStore:
    def __init__(
        self,
        pool: DbPool,
        fingerprint_key: bytes | None = None,
        *,
        claim_lease: timedelta = CLAIM_LEASE,
        process: str | None = None,
        heartbeat_lapse: timedelta = HEARTBEAT_LAPSE,
    ) -> None:
        """`fingerprint_key` (the core always passes one) keys the stored fingerprints: the gateway's is a
        plain SHA-256 of the body, and a card payment's body is guessable from the stored last4, expiry and
        brand in ~10^8 tries, which would give back the card number and CVC.

        `process` (the core passes its name, and beats it in core_heartbeats) is written on each claim, so
        a retry can take over the claim of a core that died as soon as its heartbeat lapses; without one,
        claims follow their lease only."""
        self._pool = pool
        self._fingerprint_key = fingerprint_key
        self._claim_lease = claim_lease
        self._process = process
        self._heartbeat_lapse = heartbeat_lapse

    def _request_params(self, request: IdempotencyRequest, now: datetime) -> dict[str, Any]:
        return _params(request, now, self._fingerprint(request), self._claim_lease, self._heartbeat_lapse)

    def _fingerprint(self, request: IdempotencyRequest) -> str:
        if self._fingerprint_key is None:
            return request.fingerprint
        return hmac.new(self._fingerprint_key, request.fingerprint.encode(), hashlib.sha256).hexdigest()

    def first_claim_params(self, claim: FirstClaim) -> dict[str, Any]:
        """The parameters of FIRST_CLAIM_CTES (prefixed `idem_`, beside the object's own)."""
        params = self._request_params(claim.request, claim.now)
        return {**{f"idem_{name}": value for name, value in params.items()}, "idem_response": claim.response}

    @wraps_psycopg_errors
    async def claim(self, request: IdempotencyRequest, now: datetime) -> IdempotencyRecord:
        params = self._request_params(request, now)
        # A fresh random token per claim: a takeover, even by the same process, is a different owner.
        owner = secrets.token_hex(16)
        async with self._pool.connection() as conn:
            claimed = {**params, "owner": owner, "process": self._process}
            if await (await conn.execute(_CLAIM, claimed)).fetchone() is not None:
                return IdempotencyRecord(ClaimOutcome.CLAIMED, owner=owner)
            row = await (await conn.execute(_SELECT, params)).fetchone()
        return self._judge(params["fingerprint"], row)

    @wraps_psycopg_errors
    async def check(self, request: IdempotencyRequest, now: datetime) -> IdempotencyRecord:
        params = self._request_params(request, now)
        fingerprint = params["fingerprint"]
        async with self._pool.connection() as conn:
            row = await (await conn.execute(_SELECT, params)).fetchone()
        if row is None:
            return IdempotencyRecord(ClaimOutcome.CLAIMED)
        abandoned = row["locked_until"] < now or not row["owner_alive"]
        if row["state"] == "in_progress" and abandoned and row["fingerprint"] == fingerprint:
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
            cursor = await conn.execute(_COMPLETE, _completion_params(completion))
        if cursor.rowcount != 1:
            # The operation's write is done and cannot be undone here; the new owner's run replays it.
            logger.warning("idempotency claim %s was taken over before its answer was stored", completion.key)

    @wraps_psycopg_errors
    async def store_error(self, request: IdempotencyRequest, error: StoredError, owner: str | None) -> None:
        params = {"scope": request.scope, "key": request.key, "error": Jsonb(error.to_json()), "owner": owner}
        async with self._pool.connection() as conn:
            await conn.execute(_STORE_ERROR, params)

    @wraps_psycopg_errors
    async def release(self, request: IdempotencyRequest, owner: str | None) -> None:
        async with self._pool.connection() as conn:
            await conn.execute(_RELEASE, {"scope": request.scope, "key": request.key, "owner": owner})
