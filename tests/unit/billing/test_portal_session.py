"""Portal session rules: the token (random, stored as a digest), the one-hour life, the anti-forgery
token of the forms, and the next invoice the portal shows."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime, timedelta

import pytest

from core_server.billing.domain.portal_session import (
    LIFETIME,
    PortalSession,
    anti_forgery_token,
    check_anti_forgery,
    expires_at,
    is_token,
    new_token,
    token_digest,
    upcoming_invoice,
    validate_return_url,
)
from core_server.billing.domain.subscription_status import SubscriptionStatus
from core_server.kernel.domain.environment import Environment
from core_server.kernel.domain.errors import Forbidden, ParameterInvalid
from tests.unit.billing.test_subscription import START, price, rate, started

CREATED = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
KEY = b"k" * 32


def session(created: datetime = CREATED) -> PortalSession:
    return PortalSession(
        id="bps_" + "a" * 24,
        merchant_id="acct_1",
        environment=Environment.TEST,
        customer_id="cus_1",
        return_url="https://shop.example/account",
        token_digest=token_digest("t"),
        created=created,
        expires_at=expires_at(created),
    )


def test_a_token_carries_256_random_bits_and_is_stored_as_its_sha256_digest() -> None:
    tokens = {new_token() for _ in range(200)}
    assert len(tokens) == 200
    assert all(len(token) == 43 and is_token(token) for token in tokens)  # 32 bytes, url-safe base64
    token = next(iter(tokens))
    assert token_digest(token) == hashlib.sha256(token.encode()).hexdigest() != token


@pytest.mark.parametrize("value", ["", "a" * 42, "a" * 44, "a" * 42 + "/", "a" * 42 + "."])
def test_anything_but_a_token_we_issue_is_refused_before_a_lookup(value: str) -> None:
    assert not is_token(value)


def test_a_session_is_valid_for_exactly_one_hour() -> None:
    assert timedelta(hours=1) == LIFETIME
    s = session()
    assert not s.expired(CREATED)
    assert not s.expired(CREATED + timedelta(minutes=59, seconds=59))
    assert s.expired(CREATED + timedelta(hours=1))
    assert s.expired(CREATED + timedelta(minutes=61))


def test_the_anti_forgery_token_is_per_session_and_per_key() -> None:
    own = anti_forgery_token(KEY, "bps_1")
    assert own == anti_forgery_token(KEY, "bps_1")
    assert own != anti_forgery_token(KEY, "bps_2")
    assert own != anti_forgery_token(b"x" * 32, "bps_1")
    check_anti_forgery(KEY, "bps_1", own)


@pytest.mark.parametrize("presented", ["", "0" * 64, "é", "bps_1"])
def test_a_wrong_anti_forgery_token_is_forbidden(presented: str) -> None:
    with pytest.raises(Forbidden) as err:
        check_anti_forgery(KEY, "bps_1", presented)
    assert err.value.param == "anti_forgery_token"


def test_another_sessions_anti_forgery_token_is_forbidden() -> None:
    with pytest.raises(Forbidden):
        check_anti_forgery(KEY, "bps_1", anti_forgery_token(KEY, "bps_2"))


@pytest.mark.parametrize("url", ["javascript:alert(1)", "/relative", "ftp://x.example", "https://"])
def test_the_return_url_must_be_an_absolute_http_url(url: str) -> None:
    with pytest.raises(ParameterInvalid) as err:
        validate_return_url(url)
    assert err.value.param == "return_url"


def test_the_next_invoice_of_an_active_subscription_is_at_period_end_with_its_tax() -> None:
    subscription = started(price(amount=3100))
    upcoming = upcoming_invoice(subscription, rate("19"))
    assert upcoming is not None
    assert upcoming.at == subscription.current_period_end
    assert (upcoming.subtotal_cents, upcoming.tax_cents, upcoming.total_cents) == (3100, 589, 3689)
    # Shown, never applied: the subscription itself is untouched.
    assert subscription.current_period_start == START and not subscription.pending_events


def test_a_trial_is_invoiced_at_its_end() -> None:
    subscription = started(price(amount=1000, trial=14))
    assert subscription.status is SubscriptionStatus.TRIALING
    upcoming = upcoming_invoice(subscription, None)
    assert upcoming is not None
    assert (upcoming.at, upcoming.total_cents) == (subscription.trial_end, 1000)


def test_nothing_comes_next_when_set_to_cancel_or_not_billing() -> None:
    subscription = started()
    subscription.cancel_at_period_end = True
    assert upcoming_invoice(subscription, None) is None
    for status in (SubscriptionStatus.PAST_DUE, SubscriptionStatus.PAUSED, SubscriptionStatus.CANCELED):
        other = started()
        other.status = status
        assert upcoming_invoice(other, None) is None
