"""Merchants, their public profile and the password rule."""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass
from datetime import datetime

from core_server.kernel.domain.errors import ParameterInvalid
from core_server.kernel.domain.input_rules import validate_email, validate_url
from core_server.kernel.domain.money import SUPPORTED_CURRENCIES

MIN_PASSWORD = 8
MAX_PASSWORD = 256
MAX_BUSINESS_NAME = 200
PAYOUT_SCHEDULES = frozenset({"daily", "weekly", "monthly"})
_ACCOUNT_RE = re.compile(r"^[0-9]{4,17}$")
_COLOR_RE = re.compile(r"^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$")

# scrypt cost: ~50 ms per hash here, so a stolen table resists offline guessing (DESIGN §3).
_SCRYPT_N, _SCRYPT_R, _SCRYPT_P = 2**14, 8, 1


@dataclass(frozen=True, slots=True)
class Profile:
    business_name: str = ""
    logo_url: str = ""
    brand_color: str = ""
    support_email: str = ""
    payout_schedule: str = "daily"
    payout_account_number: str = ""
    settlement_currency: str = ""
    """With it, payouts convert the other currencies into this one (DESIGN §9); empty: no conversion."""
    """Where payouts go (digits); `000111111116` is the sandbox's failing test account (DESIGN §9)."""


@dataclass(frozen=True, slots=True)
class Merchant:
    id: str
    email: str
    password_hash: str
    profile: Profile
    created: datetime
    token_version: int = 0
    """Bumped by each password change; dashboard tokens of an older version are refused (DESIGN §10.9)."""


def check_password(password: str) -> None:
    if len(password) < MIN_PASSWORD:
        raise ParameterInvalid(f"password must be at least {MIN_PASSWORD} characters.", param="password")
    if len(password) > MAX_PASSWORD:
        raise ParameterInvalid(f"password must be at most {MAX_PASSWORD} characters.", param="password")


def hash_password(password: str) -> str:
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(password.encode(), salt=salt, n=_SCRYPT_N, r=_SCRYPT_R, p=_SCRYPT_P)
    return f"scrypt${_SCRYPT_N}${_SCRYPT_R}${_SCRYPT_P}${salt.hex()}${digest.hex()}"


def verify_password(password: str, stored: str) -> bool:
    """Constant-time comparison of the derived key."""
    try:
        _, n, r, p, salt_hex, digest_hex = stored.split("$")
        digest = hashlib.scrypt(password.encode(), salt=bytes.fromhex(salt_hex), n=int(n), r=int(r), p=int(p))
    except (ValueError, TypeError):
        return False
    return hmac.compare_digest(digest.hex(), digest_hex)


def validate_profile_field(name: str, value: str) -> str:
    """An empty string clears a field; anything else must fit the field's format."""
    if value == "":
        if name == "payout_schedule":
            raise ParameterInvalid("payout_schedule must be daily, weekly or monthly.", param=name)
        return value
    if name == "business_name":
        if len(value) > MAX_BUSINESS_NAME:
            raise ParameterInvalid(
                f"business_name must be at most {MAX_BUSINESS_NAME} characters.", param=name
            )
    elif name == "logo_url":
        validate_url(value, name)
    elif name == "brand_color":
        if not _COLOR_RE.match(value):
            raise ParameterInvalid("brand_color must be a hex colour such as #1a2b3c.", param=name)
    elif name == "support_email":
        validate_email(value, name)
    elif name == "payout_account_number" and not _ACCOUNT_RE.match(value):
        raise ParameterInvalid("payout_account_number must be 4 to 17 digits.", param=name)
    elif name == "settlement_currency":
        if value.lower() not in SUPPORTED_CURRENCIES:
            allowed = ", ".join(sorted(SUPPORTED_CURRENCIES))
            raise ParameterInvalid(f"settlement_currency must be one of {allowed}.", param=name)
        return value.lower()
    elif name == "payout_schedule" and value not in PAYOUT_SCHEDULES:
        raise ParameterInvalid("payout_schedule must be daily, weekly or monthly.", param=name)
    return value
