"""Payout account numbers stored in clear before migration 0023 are sealed at core start (and by
`make rotate-keys`), and still read back; a sealed number opens only on its own merchant's row."""

from __future__ import annotations

import pytest

from core_server.bootstrap import Core
from core_server.merchants.storage.merchant_repository import PgMerchantRepository
from core_server.sealing import payout_accounts
from core_server.security.secret_box import SecretUnreadable
from tests.integration.core.factories import new_owner

pytestmark = pytest.mark.integration

ACCOUNT = "000123456789"


async def test_a_clear_account_number_is_sealed_and_still_reads_back(core: Core) -> None:
    owner = await new_owner(core)
    async with core.pool.connection() as conn:
        await conn.execute(
            "UPDATE merchants SET payout_account_number = %s, payout_account_sealed = NULL WHERE id = %s",
            (ACCOUNT, owner.merchant_id),
        )
    repo = PgMerchantRepository(core.pool, payout_accounts(core.settings))
    before = await repo.get(owner.merchant_id)
    assert before is not None and before.profile.payout_account_number == ACCOUNT  # read while in clear

    assert await repo.seal_clear_accounts() >= 1
    async with core.pool.connection() as conn:
        row = await (
            await conn.execute(
                "SELECT payout_account_number, payout_account_sealed FROM merchants WHERE id = %s",
                (owner.merchant_id,),
            )
        ).fetchone()
        assert row is not None
        assert row["payout_account_number"] == "" and row["payout_account_sealed"] is not None
        left = await (
            await conn.execute("SELECT count(*) AS n FROM merchants WHERE payout_account_number <> ''")
        ).fetchone()
        assert left is not None and left["n"] == 0
    after = await repo.get(owner.merchant_id)
    assert after is not None and after.profile.payout_account_number == ACCOUNT
    assert await repo.seal_clear_accounts() == 0  # idempotent


async def test_a_sealed_number_copied_onto_another_merchant_does_not_open(core: Core) -> None:
    victim, thief = await new_owner(core), await new_owner(core)
    await core.merchants.update(victim.merchant_id, {"payout_account_number": ACCOUNT}, "password123")
    async with core.pool.connection() as conn:
        await conn.execute(
            "UPDATE merchants t SET payout_account_sealed = v.payout_account_sealed,"
            " payout_account_key_id = v.payout_account_key_id FROM merchants v WHERE v.id = %s AND t.id = %s",
            (victim.merchant_id, thief.merchant_id),
        )
    repo = PgMerchantRepository(core.pool, payout_accounts(core.settings))
    with pytest.raises(SecretUnreadable):
        await repo.get(thief.merchant_id)
