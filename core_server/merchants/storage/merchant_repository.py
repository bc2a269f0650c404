"""PgMerchantRepository: merchant accounts and profiles."""

from __future__ import annotations

from typing import Any

import psycopg

from core_server.db.errors import wraps_psycopg_errors
from core_server.db.pool import DbPool
from core_server.kernel.application.ports import IdCollision
from core_server.merchants.application.merchants import EmailTaken
from core_server.merchants.domain.merchant import Merchant, Profile

_INSERT = """
INSERT INTO merchants (id, email, password_hash, business_name, logo_url, brand_color, support_email,
                       payout_schedule, payout_account_number, settlement_currency, created_at)
VALUES (%(id)s, %(email)s, %(password_hash)s, %(business_name)s, %(logo_url)s, %(brand_color)s,
        %(support_email)s, %(payout_schedule)s, %(payout_account_number)s, %(settlement_currency)s,
        %(created_at)s)
"""
_BY_ID = "SELECT * FROM merchants WHERE id = %s"
_BY_EMAIL = "SELECT * FROM merchants WHERE lower(email) = lower(%s)"
_UPDATE_PROFILE = """
UPDATE merchants SET business_name = %(business_name)s, logo_url = %(logo_url)s,
       brand_color = %(brand_color)s, support_email = %(support_email)s,
       payout_schedule = %(payout_schedule)s, payout_account_number = %(payout_account_number)s,
       settlement_currency = %(settlement_currency)s
WHERE id = %(id)s
"""


def _from_row(row: dict[str, Any]) -> Merchant:
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
            payout_account_number=row["payout_account_number"],
            settlement_currency=row["settlement_currency"],
        ),
        created=row["created_at"],
    )


def _profile_params(profile: Profile) -> dict[str, str]:
    return {
        "business_name": profile.business_name,
        "logo_url": profile.logo_url,
        "brand_color": profile.brand_color,
        "support_email": profile.support_email,
        "payout_schedule": profile.payout_schedule,
        "payout_account_number": profile.payout_account_number,
        "settlement_currency": profile.settlement_currency,
    }


class PgMerchantRepository:
    def __init__(self, pool: DbPool) -> None:
        self._pool = pool

    @wraps_psycopg_errors
    async def insert(self, merchant: Merchant) -> None:
        params = {
            "id": merchant.id,
            "email": merchant.email,
            "password_hash": merchant.password_hash,
            "created_at": merchant.created,
            **_profile_params(merchant.profile),
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
        return _from_row(row) if row else None

    @wraps_psycopg_errors
    async def find_by_email(self, email: str) -> Merchant | None:
        async with self._pool.connection() as conn:
            row = await (await conn.execute(_BY_EMAIL, (email,))).fetchone()
        return _from_row(row) if row else None

    @wraps_psycopg_errors
    async def update_profile(self, merchant_id: str, profile: Profile) -> None:
        async with self._pool.connection() as conn:
            await conn.execute(_UPDATE_PROFILE, {"id": merchant_id, **_profile_params(profile)})
