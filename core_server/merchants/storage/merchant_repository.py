"""PgMerchantRepository: merchant accounts and profiles."""

from __future__ import annotations

from typing import Any

import psycopg

from core_server.db.errors import wraps_psycopg_errors
from core_server.db.pool import DbPool
from core_server.kernel.domain.ids import IdCollision
from core_server.merchants.application.merchants import EmailTaken
from core_server.merchants.domain.merchant import Merchant, Profile
from core_server.security.payout_account import PayoutAccountBox

_INSERT = """
INSERT INTO merchants (id, email, password_hash, business_name, logo_url, brand_color, support_email,
                       payout_schedule, payout_account_number, payout_account_sealed, payout_account_key_id,
                       settlement_currency, created_at)
VALUES (%(id)s, %(email)s, %(password_hash)s, %(business_name)s, %(logo_url)s, %(brand_color)s,
        %(support_email)s, %(payout_schedule)s, '', %(payout_account_sealed)s, %(payout_account_key_id)s,
        %(settlement_currency)s, %(created_at)s)
"""
_BY_ID = "SELECT * FROM merchants WHERE id = %s"
_BY_EMAIL = "SELECT * FROM merchants WHERE lower(email) = lower(%s)"
_UPDATE_PROFILE = """
UPDATE merchants SET business_name = %(business_name)s, logo_url = %(logo_url)s,
       brand_color = %(brand_color)s, support_email = %(support_email)s,
       payout_schedule = %(payout_schedule)s, payout_account_number = '',
       payout_account_sealed = %(payout_account_sealed)s, payout_account_key_id = %(payout_account_key_id)s,
       settlement_currency = %(settlement_currency)s
WHERE id = %(id)s
"""
# Clear account numbers written before migration 0023, a batch at a time; each sealed only while the row
# still holds the value read (another core sealing at its own start, or a profile change, wins).
_CLEAR_ACCOUNTS = """
SELECT id, payout_account_number FROM merchants WHERE payout_account_number <> '' ORDER BY id LIMIT %(limit)s
"""
_SEAL_CLEAR_ACCOUNT = """
UPDATE merchants SET payout_account_number = '', payout_account_sealed = %(sealed)s,
       payout_account_key_id = %(key_id)s
 WHERE id = %(id)s AND payout_account_number = %(clear)s
"""
_SEAL_BATCH = 500
# A password change revokes every dashboard token issued before it (DESIGN §10.9).
_CHANGE_PASSWORD = """
UPDATE merchants SET password_hash = %(password_hash)s, token_version = token_version + 1
 WHERE id = %(id)s
RETURNING token_version
"""


def _from_row(row: dict[str, Any], accounts: PayoutAccountBox) -> Merchant:
    account = accounts.open(
        row["id"], row["payout_account_sealed"], row["payout_account_key_id"], row["payout_account_number"]
    )
    return Merchant(
        id=row["id"],
        email=row["email"],
        password_hash=row["password_hash"],
        profile=Profile(
            business_name=row["business_name"],
            logo_url=row["logo_url"],
            brand_color=row["brand_color"],
            support_email=row["support_email"],
            payout_schedule=row["payout_schedule"],
            payout_account_number=account,
            settlement_currency=row["settlement_currency"],
        ),
        created=row["created_at"],
        token_version=row["token_version"],
    )


def _profile_params(merchant_id: str, profile: Profile, accounts: PayoutAccountBox) -> dict[str, Any]:
    sealed = accounts.seal(merchant_id, profile.payout_account_number)
    return {
        "payout_account_sealed": sealed.ciphertext if sealed else None,
        "payout_account_key_id": sealed.key_id if sealed else None,
        "business_name": profile.business_name,
        "logo_url": profile.logo_url,
        "brand_color": profile.brand_color,
        "support_email": profile.support_email,
        "payout_schedule": profile.payout_schedule,
        "settlement_currency": profile.settlement_currency,
    }


class PgMerchantRepository:
    def __init__(self, pool: DbPool, accounts: PayoutAccountBox) -> None:
        self._pool = pool
        self._accounts = accounts

    @wraps_psycopg_errors
    async def insert(self, merchant: Merchant) -> None:
        params = {
            "id": merchant.id,
            "email": merchant.email,
            "password_hash": merchant.password_hash,
            "created_at": merchant.created,
            **_profile_params(merchant.id, merchant.profile, self._accounts),
        }
        try:
            async with self._pool.connection() as conn:
                await conn.execute(_INSERT, params)
        except psycopg.errors.UniqueViolation as exc:
            if exc.diag.constraint_name == "merchants_email_key":
                raise EmailTaken(merchant.email) from exc
            raise IdCollision(merchant.id) from exc

    @wraps_psycopg_errors
    async def get(self, merchant_id: str) -> Merchant | None:
        async with self._pool.connection() as conn:
            row = await (await conn.execute(_BY_ID, (merchant_id,))).fetchone()
        return _from_row(row, self._accounts) if row else None

    @wraps_psycopg_errors
    async def find_by_email(self, email: str) -> Merchant | None:
        async with self._pool.connection() as conn:
            row = await (await conn.execute(_BY_EMAIL, (email,))).fetchone()
        return _from_row(row, self._accounts) if row else None

    @wraps_psycopg_errors
    async def update_profile(self, merchant_id: str, profile: Profile) -> None:
        async with self._pool.connection() as conn:
            params = {"id": merchant_id, **_profile_params(merchant_id, profile, self._accounts)}
            await conn.execute(_UPDATE_PROFILE, params)

    @wraps_psycopg_errors
    async def change_password(self, merchant_id: str, password_hash: str) -> int:
        """Stores the new hash and bumps the token version in one statement; the new version."""
        async with self._pool.connection() as conn:
            row = await (
                await conn.execute(_CHANGE_PASSWORD, {"id": merchant_id, "password_hash": password_hash})
            ).fetchone()
        assert row is not None
        return int(row["token_version"])

    @wraps_psycopg_errors
    async def seal_clear_accounts(self) -> int:
        """Seals the clear account numbers left from before migration 0023; run at core start. How many."""
        sealed_rows = 0
        while True:
            async with self._pool.connection() as conn:
                rows = await (await conn.execute(_CLEAR_ACCOUNTS, {"limit": _SEAL_BATCH})).fetchall()
                for row in rows:
                    sealed = self._accounts.seal(row["id"], row["payout_account_number"])
                    assert sealed is not None  # the query picks non-empty numbers only
                    params = {
                        "id": row["id"],
                        "clear": row["payout_account_number"],
                        "sealed": sealed.ciphertext,
                        "key_id": sealed.key_id,
                    }
                    sealed_rows += (await conn.execute(_SEAL_CLEAR_ACCOUNT, params)).rowcount
            if len(rows) < _SEAL_BATCH:
                return sealed_rows
