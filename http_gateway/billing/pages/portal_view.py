"""Portal page data (the core's JSON) -> what the templates show: branding, dates, URLs, notices.

The core decides everything; here the JSON only becomes template-friendly values. Branding is checked
again as the checkout pages check it (a brand colour goes into a stylesheet URL, a logo into img-src),
because a merchant's profile is input to these pages.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote, urlsplit

from http_gateway.hosted_pages.branding import brand_hex

# Test cards shown in TEST mode (spec "Sandbox test cards"): number → what happens.
TEST_CARDS: tuple[tuple[str, str], ...] = (
    ("4242 4242 4242 4242", "succeeds"),
    ("4000 0000 0000 0002", "declined"),
    ("4000 0000 0000 9995", "insufficient funds"),
    ("4000 0000 0000 0069", "expired card"),
    ("4000 0000 0000 0127", "incorrect CVC"),
)
NOTICES: Mapping[str, str] = {
    "card": "Your payment method was updated.",
    "canceled": "Your subscription will be canceled at the end of the current period.",
}
STATUS_LABELS: Mapping[str, str] = {
    "TRIALING": "Trial",
    "ACTIVE": "Active",
    "PAST_DUE": "Past due",
    "UNPAID": "Unpaid",
    "PAUSED": "Paused",
    "CANCELED": "Canceled",
    "OPEN": "Open",
    "PAID": "Paid",
    "UNCOLLECTIBLE": "Uncollectible",
    "VOID": "Void",
}
FORM_FIELDS = ("number", "exp_month", "exp_year", "cvc")


def http_url(value: str | None) -> str | None:
    """The URL when it is an absolute http(s) URL (safe for href), else None."""
    if not value:
        return None
    try:
        parts = urlsplit(value)
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not parts.netloc or any(c.isspace() for c in value):
        return None
    return value


def day(unix: int | None) -> str:
    """`12 March 2026` (UTC): billing dates are days, not instants."""
    if unix is None:
        return ""
    moment = datetime.fromtimestamp(unix, UTC)
    return f"{moment.day} {moment:%B %Y}"


def status_label(status: str) -> str:
    return STATUS_LABELS.get(status, status.replace("_", " ").title())


@dataclass(frozen=True, slots=True)
class PortalView:
    """One portal page's data in template terms; `data` is the core's JSON as it came."""

    token: str
    data: Mapping[str, Any]

    @property
    def base(self) -> str:
        return f"/portal/{quote(self.token, safe='')}"

    @property
    def merchant(self) -> Mapping[str, Any]:
        merchant: Mapping[str, Any] = self.data.get("merchant") or {}
        return merchant

    @property
    def merchant_name(self) -> str:
        return str(self.merchant.get("name") or "Merchant")

    @property
    def initial(self) -> str:
        return (self.merchant_name.strip()[:1] or "M").upper()

    @property
    def logo_url(self) -> str | None:
        # Only https logos: the CSP (img-src 'self' https: data:) would block anything else.
        logo = http_url(self.merchant.get("logo_url"))
        return logo if logo and logo.startswith("https://") else None

    @property
    def brand(self) -> str:
        return brand_hex(self.merchant.get("brand_color"))

    @property
    def support_email(self) -> str | None:
        email = self.merchant.get("support_email")
        return str(email) if email else None

    @property
    def test_mode(self) -> bool:
        return bool(self.data.get("test_mode"))

    @property
    def return_url(self) -> str | None:
        return http_url((self.data.get("session") or {}).get("return_url"))

    @property
    def anti_forgery_token(self) -> str:
        return str(self.data.get("anti_forgery_token") or "")

    @property
    def subscriptions(self) -> list[Mapping[str, Any]]:
        return list(self.data.get("subscriptions") or [])

    @property
    def invoices(self) -> list[Mapping[str, Any]]:
        return list(self.data.get("invoices") or [])

    @property
    def subscriptions_next(self) -> str | None:
        """The id the "more subscriptions" link pages after, when more follow."""
        value = self.data.get("subscriptions_next")
        return str(value) if value else None

    def subscription(self, subscription_id: str) -> Mapping[str, Any] | None:
        return next((s for s in self.subscriptions if s.get("id") == subscription_id), None)


def portal_view(token: str, view_json: str) -> PortalView:
    data: dict[str, Any] = json.loads(view_json)
    return PortalView(token, data)


@dataclass(frozen=True, slots=True)
class CardForm:
    """What a re-shown card form says: a message, the field at fault and the expiry typed before (never
    the number or the CVC)."""

    message: str = ""
    field_name: str | None = None
    field_message: str = ""
    exp_month: str = ""
    exp_year: str = ""

    def error_for(self, name: str) -> str:
        return self.field_message if name == self.field_name else ""
