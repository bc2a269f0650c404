"""The customer a merchant bills (DESIGN §9): its fields, their rules and what a PATCH may change."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from types import MappingProxyType

from core_server.kernel.domain.environment import Environment
from core_server.kernel.domain.errors import ParameterInvalid
from core_server.kernel.domain.input_rules import validate_email, validate_metadata

CUSTOMER_ID_RE = re.compile(r"^cus_[A-Za-z0-9]{24}$")
MAX_NAME = 256
MAX_ADDRESS_PART = 200
ADDRESS_PARTS = ("line1", "city", "state", "postal_code", "country")
_COUNTRY_RE = re.compile(r"^[A-Za-z]{2}$")


@dataclass(frozen=True, slots=True)
class Address:
    """A postal address; `country` (ISO 3166-1 alpha-2, uppercased) and `state` choose the tax rate."""

    line1: str | None = None
    city: str | None = None
    state: str | None = None
    postal_code: str | None = None
    country: str | None = None


@dataclass(frozen=True, slots=True)
class Customer:
    id: str
    merchant_id: str
    environment: Environment
    email: str
    name: str | None
    address: Address | None
    default_payment_method: str | None
    metadata: Mapping[str, str]
    created: datetime
    credit_balance: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))
    """DESIGN §10.1: the non-zero balances by lowercase currency (credit_balance.py); read-only here,
    moved only by invoices and adjustments."""

    @property
    def livemode(self) -> bool:
        return self.environment.livemode


@dataclass(frozen=True, slots=True)
class CustomerChanges:
    """A PATCH: None leaves a field as it is; an empty name clears it; metadata keys merge, and a key
    sent with an empty value is removed (Stripe's rule); an address replaces the whole address."""

    email: str | None = None
    name: str | None = None
    address: Address | None = None
    metadata: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    default_payment_method: str | None = None


def validate_customer_email(email: str) -> str:
    return validate_email(email.strip(), "email")


def validate_name(name: str | None) -> str | None:
    if name is None or name == "":
        return None
    if len(name) > MAX_NAME:
        raise ParameterInvalid(f"name must be at most {MAX_NAME} characters.", param="name")
    return name


def validate_address(parts: Mapping[str, str | None]) -> Address:
    """Each part optional, at most 200 characters; the country a two-letter code."""
    checked: dict[str, str | None] = {}
    for part in ADDRESS_PARTS:
        value = parts.get(part)
        if value is not None and len(value) > MAX_ADDRESS_PART:
            raise ParameterInvalid(
                f"address.{part} must be at most {MAX_ADDRESS_PART} characters.", param=f"address.{part}"
            )
        checked[part] = value or None
    country = checked["country"]
    if country is not None:
        if not _COUNTRY_RE.match(country):
            raise ParameterInvalid(
                "address.country must be a two-letter ISO 3166-1 code.", param="address.country"
            )
        checked["country"] = country.upper()
    return Address(**checked)


def validate_customer_metadata(metadata: Mapping[str, str]) -> dict[str, str]:
    return validate_metadata(metadata)


def merged_metadata(current: Mapping[str, str], patch: Mapping[str, str]) -> dict[str, str]:
    """Keys merge; an empty value removes its key. The result obeys the metadata limits."""
    merged = dict(current)
    for key, value in patch.items():
        if value == "":
            merged.pop(key, None)
        else:
            merged[key] = value
    return validate_metadata(merged)


def apply_changes(customer: Customer, changes: CustomerChanges) -> Customer:
    """The customer after a PATCH (the default payment method is checked by the caller, who knows the
    customer's methods)."""
    return replace(
        customer,
        email=changes.email if changes.email is not None else customer.email,
        name=customer.name if changes.name is None else (changes.name or None),
        address=changes.address if changes.address is not None else customer.address,
        metadata=merged_metadata(customer.metadata, changes.metadata),
        default_payment_method=(
            changes.default_payment_method
            if changes.default_payment_method is not None
            else customer.default_payment_method
        ),
    )
