"""The customer portal session (DESIGN §9 "Portal"): its token, its one-hour life, the anti-forgery token
of its forms, and what the portal shows as a subscription's next invoice.

The token in the portal URL is the customer's only credential, so it is 256 random bits, handed out once
and stored as a SHA-256 digest (as API secret keys are: enough entropy that no slow KDF is needed). The
anti-forgery token of the pages' forms is an HMAC of the session id under a server key: nothing to store,
and neither a copied page URL nor a read of the table yields it.
"""

from __future__ import annotations

import copy
import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from core_server.billing.domain.subscription import Subscription
from core_server.billing.domain.subscription_status import SubscriptionStatus
from core_server.billing.domain.tax import TaxRate
from core_server.kernel.domain.environment import Environment
from core_server.kernel.domain.errors import Forbidden, NotFound
from core_server.kernel.domain.input_rules import validate_url

PORTAL_SESSION_PREFIX = "bps_"
PORTAL_SESSION_ID_RE = re.compile(r"^bps_[A-Za-z0-9]{24}$")
LIFETIME = timedelta(hours=1)
"""DESIGN §9: a portal session lives one hour (the merchant's sandbox clock in TEST)."""
TOKEN_BYTES = 32
"""256 random bits (DESIGN §9 asks for at least 128)."""
# token_urlsafe(32) is 43 characters of [A-Za-z0-9_-]; anything else is not a token we issued.
TOKEN_RE = re.compile(r"^[A-Za-z0-9_-]{43}$")
EXPIRED_MESSAGE = "This portal session has expired or does not exist."
FORGERY_MESSAGE = "The form was not issued by this portal session; reload the page and try again."


@dataclass(frozen=True, slots=True)
class PortalSession:
    id: str
    merchant_id: str
    environment: Environment
    customer_id: str
    return_url: str
    token_digest: str
    created: datetime
    expires_at: datetime

    @property
    def livemode(self) -> bool:
        return self.environment.livemode

    def expired(self, now: datetime) -> bool:
        """Valid for exactly LIFETIME: at `expires_at` itself it is over."""
        return now >= self.expires_at


def new_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def expires_at(created: datetime) -> datetime:
    return created + LIFETIME


def is_token(value: str) -> bool:
    return bool(TOKEN_RE.match(value))


def session_expired() -> NotFound:
    """One answer for an unknown, malformed and expired token: the page says "expired" either way."""
    return NotFound(EXPIRED_MESSAGE, param="token")


def validate_return_url(return_url: str) -> str:
    """Like a charge's return_url: an absolute http(s) URL of at most 500 characters."""
    return validate_url(return_url, "return_url")


def anti_forgery_token(key: bytes, session_id: str) -> str:
    return hmac.new(key, f"portal-form:{session_id}".encode(), hashlib.sha256).hexdigest()


def check_anti_forgery(key: bytes, session_id: str, presented: str) -> None:
    """Constant-time: a wrong token reveals nothing about the right one."""
    if not hmac.compare_digest(anti_forgery_token(key, session_id).encode(), presented.encode()):
        raise Forbidden(FORGERY_MESSAGE, param="anti_forgery_token")


@dataclass(frozen=True, slots=True)
class UpcomingInvoice:
    """What the billing run will invoice next, and when (shown, never stored)."""

    at: datetime
    subtotal_cents: int
    tax_cents: int
    total_cents: int


def upcoming_invoice(subscription: Subscription, rate: TaxRate | None) -> UpcomingInvoice | None:
    """The next invoice of an ACTIVE subscription (at period end) or a TRIALING one (at trial end), as the
    billing run would open it, on a copy; None when nothing more will be invoiced (set to cancel at period
    end, canceled, paused, or owing: a PAST_DUE or UNPAID one shows its open invoice instead)."""
    if subscription.cancel_at_period_end:
        return None
    trial = copy.deepcopy(subscription)
    trial.pending_events = []
    if subscription.status is SubscriptionStatus.ACTIVE:
        invoice = trial.end_period(rate, subscription.current_period_end)
    elif subscription.status is SubscriptionStatus.TRIALING and subscription.trial_end is not None:
        invoice = trial.end_trial(rate, subscription.trial_end)
    else:
        return None
    if invoice is None:
        return None
    return UpcomingInvoice(invoice.created, invoice.subtotal_cents, invoice.tax_cents, invoice.total_cents)
