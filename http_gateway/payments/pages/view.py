"""Checkout page data (pb2) -> what the templates show: branding, states, origins."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from urllib.parse import quote, urlsplit

from connect.v1 import charge_pb2, checkout_pb2

from http_gateway.hosted_pages.branding import brand_hex

_HOSTNAME = re.compile(r"[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\]")

# A decline's sentence is the core's (one table, core_server/payments/domain/payment.py), carried in the
# completion's `error_message`; this one only stands in when the core sent none.
GENERIC_DECLINE = "The payment could not be completed."

# Form fields a server-side error may point at (`paymentMethodDetails.<name>` in the error's param).
FORM_FIELDS = ("card_number", "exp_month", "exp_year", "cvc", "email")

PROCESSED = "processed"
# Charge status -> (state kind, page title, which merchant URL the page links to).
_STATES: Mapping[int, tuple[str, str, str]] = {
    charge_pb2.CHARGE_STATUS_EXPIRED: ("expired", "This checkout has expired", "cancel"),
    charge_pb2.CHARGE_STATUS_AUTHORIZED: (PROCESSED, "Payment already received", "return"),
    charge_pb2.CHARGE_STATUS_CAPTURED: (PROCESSED, "Payment already received", "return"),
    charge_pb2.CHARGE_STATUS_PARTIALLY_REFUNDED: (PROCESSED, "Payment already received", "return"),
    charge_pb2.CHARGE_STATUS_FAILED: ("failed", "Payment failed", "cancel"),
    charge_pb2.CHARGE_STATUS_VOIDED: ("cancelled", "Payment cancelled", "cancel"),
    charge_pb2.CHARGE_STATUS_REFUNDED: ("refunded", "Payment refunded", "return"),
    charge_pb2.CHARGE_STATUS_DISPUTED: ("disputed", "Payment under dispute", "return"),
}
# A pending charge past its 24 h is reported invalid before the sweep marks it expired.
_PENDING_BUT_INVALID = ("expired", "This checkout has expired", "cancel")


def decline_message(message: str) -> str:
    return message or GENERIC_DECLINE


def http_url(value: str) -> str | None:
    """The URL when it is an absolute http(s) URL (safe for href and for navigation), else None."""
    try:
        parts = urlsplit(value)
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not parts.netloc or any(c.isspace() for c in value):
        return None
    return value


def url_origin(value: str) -> str | None:
    """`scheme://host[:port]` of an http(s) URL, checked character by character (it goes into a CSP)."""
    if http_url(value) is None:
        return None
    parts = urlsplit(value)
    host = parts.netloc.rpartition("@")[2]
    name, _, port = host.rpartition(":") if not host.endswith("]") else (host, "", "")
    if not name:
        name, port = host, ""
    if not _HOSTNAME.fullmatch(name) or (port and not port.isdigit()):
        return None
    return f"{parts.scheme}://{name.lower()}{':' + port if port else ''}"


@dataclass(frozen=True, slots=True)
class StateView:
    """A page that explains why the customer cannot pay, with a way back to the merchant."""

    kind: str
    title: str
    message: str
    link_url: str | None = None
    link_label: str | None = None


@dataclass(frozen=True, slots=True)
class FormState:
    """What a re-rendered form shows: the chosen method, safe values typed before, and messages."""

    method: str = "card"
    values: Mapping[str, str] = field(default_factory=dict)
    message: str = ""
    field_name: str | None = None
    field_message: str = ""

    def error_for(self, name: str) -> str:
        return self.field_message if name == self.field_name else ""


@dataclass(frozen=True, slots=True)
class CheckoutView:
    """The page data in template terms."""

    charge_id: str
    found: bool
    valid: bool
    status: int
    error_message: str
    merchant_name: str
    logo_url: str | None
    brand: str
    amount: str
    description: str
    test_mode: bool
    support_email: str | None
    methods: tuple[str, ...]
    return_url: str | None
    cancel_url: str | None

    @property
    def path(self) -> str:
        return f"/checkout/{quote(self.charge_id, safe='')}"

    @property
    def initial(self) -> str:
        return (self.merchant_name.strip()[:1] or "M").upper()

    @property
    def back_url(self) -> str | None:
        """Where giving up leads: cancel_url, else return_url (as the core's cancel answers)."""
        return self.cancel_url or self.return_url

    def form_origins(self) -> tuple[str, ...]:
        """Origins a form post may be redirected to (CSP form-action also governs redirects)."""
        origins = (url_origin(u) for u in (self.return_url, self.cancel_url) if u)
        return tuple(dict.fromkeys(o for o in origins if o))

    def state(self, *, message: str | None = None) -> StateView:
        """The invalid-state page for this charge; `message` replaces the core's sentence (a decline)."""
        if not self.found:
            return StateView("not_found", "Checkout not found", self.error_message or "Charge not found")
        kind, title, target = _STATES.get(self.status, _PENDING_BUT_INVALID)
        url = self.return_url if target == "return" else self.back_url
        label = f"Return to {self.merchant_name}" if url else None
        return StateView(kind, title, message or self.error_message, url, label)


def checkout_view(page: checkout_pb2.CheckoutPage) -> CheckoutView:
    logo = page.merchant_logo_url if page.HasField("merchant_logo_url") else ""
    support = page.merchant_support_email if page.HasField("merchant_support_email") else ""
    brand = page.merchant_brand_color if page.HasField("merchant_brand_color") else None
    return CheckoutView(
        charge_id=page.charge_id,
        found=page.found,
        valid=page.found and page.valid,
        status=page.status,
        error_message=page.error_message,
        merchant_name=page.merchant_name or "Merchant",
        # Only https logos: the page's CSP (img-src 'self' https: data:) would block anything else.
        logo_url=logo if logo.startswith("https://") and http_url(logo) else None,
        brand=brand_hex(brand),
        amount=page.formatted_amount,
        description=page.description,
        test_mode=page.test_mode,
        support_email=support or None,
        methods=tuple(m for m in page.available_payment_methods if m in ("card", "paypal")) or ("card",),
        return_url=http_url(page.return_url),
        cancel_url=http_url(page.cancel_url),
    )
