"""Customer portal sessions through the core's use cases on the real database, with a settable clock:
create, the page data, expiry after one hour, the anti-forgery check, and the two changes."""

from __future__ import annotations

from datetime import timedelta

import pytest

from core_server.billing.application.portal_sessions import CreatedPortalSession
from core_server.billing.domain.invoice import InvoiceStatus
from core_server.billing.domain.portal_session import token_digest
from core_server.billing.domain.subscription_status import SubscriptionStatus
from core_server.bootstrap import Core
from core_server.kernel.application.clocks import SettableClock
from core_server.kernel.application.owner import Owner
from core_server.kernel.domain.environment import Environment
from core_server.kernel.domain.errors import (
    Forbidden,
    InvalidRequest,
    NotFound,
    ParameterInvalid,
    ParameterMissing,
)
from core_server.payments.domain.card import CardInput
from tests.integration.core.factories import new_owner
from tests.integration.core.test_subscription_service import (
    DUNNING_CARD,
    customer_with_card,
    monthly_price,
)

pytestmark = pytest.mark.integration

RETURN_URL = "https://shop.example/account"


def token_of(created: CreatedPortalSession) -> str:
    return created.url.rsplit("/portal/", 1)[1]


async def subscribed_customer(core: Core, owner: Owner, card: str = "4242424242424242") -> tuple[str, str]:
    customer_id = await customer_with_card(core, owner, card)
    price_id = await monthly_price(core, owner)
    subscription = await core.subscriptions.create(
        owner,
        customer_id=customer_id,
        price_id=price_id,
        collection_method=None,
        tax_rate_id=None,
        metadata={},
    )
    return customer_id, subscription.id


async def test_a_session_lives_one_hour_and_its_table_holds_only_the_tokens_digest(core: Core) -> None:
    owner = await new_owner(core)
    customer_id = await customer_with_card(core, owner)
    created = await core.portal.create(owner, customer_id=customer_id, return_url=RETURN_URL)
    session, token = created.session, token_of(created)
    assert created.url == f"http://checkout.test/portal/{token}"
    assert session.id.startswith("bps_") and session.expires_at - session.created == timedelta(hours=1)
    async with core.pool.connection() as conn:
        row = await (
            await conn.execute("SELECT * FROM portal_sessions WHERE id = %s", (session.id,))
        ).fetchone()
    assert row is not None and row["token_digest"] == token_digest(token)
    assert token not in " ".join(str(value) for value in row.values())


async def test_the_page_shows_subscriptions_next_invoice_default_card_and_history(core: Core) -> None:
    owner = await new_owner(core)
    customer_id, subscription_id = await subscribed_customer(core, owner)
    created = await core.portal.create(owner, customer_id=customer_id, return_url=RETURN_URL)
    page = await core.portal.page(token_of(created))
    assert page.customer.id == customer_id
    assert page.default_method is not None and page.default_method.card is not None
    assert page.default_method.card.last4 == "4242"
    [panel] = page.panels
    subscription = panel.subscription
    assert subscription.id == subscription_id and panel.labels[subscription.price_id] == "Pro"
    assert panel.upcoming is not None
    assert (panel.upcoming.at, panel.upcoming.total_cents) == (subscription.current_period_end, 2000)
    [invoice] = page.invoices
    assert (invoice.status, invoice.total_cents) == (InvoiceStatus.PAID, 2000)
    shown = await core.portal.invoice(token_of(created), invoice.id)
    assert shown.invoice.id == invoice.id


async def test_the_session_expires_after_one_hour_of_the_merchants_sandbox_clock(
    core: Core, clock: SettableClock
) -> None:
    owner = await new_owner(core)
    customer_id = await customer_with_card(core, owner)
    token = token_of(await core.portal.create(owner, customer_id=customer_id, return_url=RETURN_URL))
    clock.advance(timedelta(minutes=59))
    await core.portal.page(token)
    # The merchant's sandbox clock moves the session's time, not the wall clock.
    now = await core.test_clock.now(owner)
    await core.test_clock.advance(owner, int((now + timedelta(minutes=2)).timestamp()))
    with pytest.raises(NotFound) as expired:
        await core.portal.page(token)
    assert expired.value.param == "token"
    with pytest.raises(NotFound):
        await core.portal.cancel_at_period_end(token, "x", "sub_x")


async def test_unknown_and_malformed_tokens_answer_like_an_expired_one(core: Core) -> None:
    for token in ("", "short", "A" * 43, "../../etc/passwd"):
        with pytest.raises(NotFound) as err:
            await core.portal.page(token)
        assert err.value.param == "token"


async def test_another_tenants_customer_is_404_on_customer_id_and_input_is_checked(core: Core) -> None:
    owner = await new_owner(core)
    other = await new_owner(core)
    customer_id = await customer_with_card(core, owner)
    for caller in (other, Owner(owner.merchant_id, Environment.LIVE)):
        with pytest.raises(NotFound) as err:
            await core.portal.create(caller, customer_id=customer_id, return_url=RETURN_URL)
        assert err.value.param == "customer_id"
    with pytest.raises(ParameterMissing) as missing:
        await core.portal.create(owner, customer_id=customer_id, return_url="")
    assert missing.value.param == "return_url"
    with pytest.raises(ParameterInvalid) as bad:
        await core.portal.create(owner, customer_id=customer_id, return_url="javascript:alert(1)")
    assert bad.value.param == "return_url"


async def test_a_wrong_anti_forgery_token_changes_nothing(core: Core) -> None:
    owner = await new_owner(core)
    customer_id, subscription_id = await subscribed_customer(core, owner)
    token = token_of(await core.portal.create(owner, customer_id=customer_id, return_url=RETURN_URL))
    other_token = token_of(await core.portal.create(owner, customer_id=customer_id, return_url=RETURN_URL))
    foreign_form = (await core.portal.page(other_token)).anti_forgery_token
    card = CardInput(number="4012888888881881", exp_month=12, exp_year=2099, cvc="123")
    for form_token in ("", "0" * 64, foreign_form):
        with pytest.raises(Forbidden):
            await core.portal.update_payment_method(token, form_token, card)
        with pytest.raises(Forbidden):
            await core.portal.cancel_at_period_end(token, form_token, subscription_id)
    page = await core.portal.page(token)
    assert page.default_method is not None and page.default_method.card is not None
    assert page.default_method.card.last4 == "4242"
    assert not page.panels[0].subscription.cancel_at_period_end


async def test_a_new_card_from_the_portal_pays_a_past_due_subscriptions_open_invoice(core: Core) -> None:
    owner = await new_owner(core)
    customer_id, subscription_id = await subscribed_customer(core, owner, DUNNING_CARD)
    assert (await core.subscriptions.get(owner, subscription_id)).status is SubscriptionStatus.PAST_DUE
    token = token_of(await core.portal.create(owner, customer_id=customer_id, return_url=RETURN_URL))
    page = await core.portal.page(token)
    assert page.panels[0].owed is not None and page.panels[0].owed.total_cents == 2000
    card = CardInput(number="4000000000009995", exp_month=12, exp_year=2099, cvc="123")
    with pytest.raises(InvalidRequest) as declined:
        await core.portal.update_payment_method(token, page.anti_forgery_token, card)
    assert declined.value.code == "insufficient_funds"
    good = CardInput(number="4012888888881881", exp_month=12, exp_year=2099, cvc="123")
    method = await core.portal.update_payment_method(token, page.anti_forgery_token, good)
    assert method.card is not None and method.card.last4 == "1881"
    assert (await core.subscriptions.get(owner, subscription_id)).status is SubscriptionStatus.ACTIVE
    after = await core.portal.page(token)
    assert after.default_method is not None and after.default_method.id == method.id
    assert all(inv.status is InvoiceStatus.PAID for inv in after.invoices)


async def test_cancel_at_period_end_only_for_the_sessions_own_subscriptions(core: Core) -> None:
    owner = await new_owner(core)
    customer_id, subscription_id = await subscribed_customer(core, owner)
    _, someone_elses = await subscribed_customer(core, owner)
    token = token_of(await core.portal.create(owner, customer_id=customer_id, return_url=RETURN_URL))
    form = (await core.portal.page(token)).anti_forgery_token
    with pytest.raises(NotFound):
        await core.portal.cancel_at_period_end(token, form, someone_elses)
    assert not (await core.subscriptions.get(owner, someone_elses)).cancel_at_period_end
    canceled = await core.portal.cancel_at_period_end(token, form, subscription_id)
    assert canceled.cancel_at_period_end and canceled.status is SubscriptionStatus.ACTIVE
    panel = (await core.portal.page(token)).panels[0]
    assert panel.upcoming is None
    other_invoice = (
        await core.invoices.list(
            owner, subscription_id=someone_elses, customer_id=None, status=None, limit=1, starting_after=None
        )
    ).items[0]
    with pytest.raises(NotFound):
        await core.portal.invoice(token, other_invoice.id)


async def test_every_session_gets_its_own_token(core: Core) -> None:
    owner = await new_owner(core)
    customer_id = await customer_with_card(core, owner)
    urls = {
        (await core.portal.create(owner, customer_id=customer_id, return_url=RETURN_URL)).url
        for _ in range(5)
    }
    assert len(urls) == 5 and all(len(url.rsplit("/", 1)[1]) == 43 for url in urls)


async def test_the_retention_sweep_deletes_sessions_a_day_after_they_expired(
    core: Core, clock: SettableClock
) -> None:
    owner = await new_owner(core)
    customer_id = await customer_with_card(core, owner)
    old = await core.portal.create(owner, customer_id=customer_id, return_url=RETURN_URL)
    clock.advance(timedelta(hours=12))
    fresh = await core.portal.create(owner, customer_id=customer_id, return_url=RETURN_URL)
    clock.advance(timedelta(hours=13))  # old expired 24 h ago, fresh 12 h ago
    await core.retention.run_once()
    async with core.pool.connection() as conn:
        rows = await (
            await conn.execute(
                "SELECT id FROM portal_sessions WHERE id = ANY(%s)", ([old.session.id, fresh.session.id],)
            )
        ).fetchall()
    assert [row["id"] for row in rows] == [fresh.session.id]
