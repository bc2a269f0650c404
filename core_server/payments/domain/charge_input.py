"""Validation of a create-charge request into a ChargeDraft (spec limits, DESIGN §4)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from urllib.parse import urlsplit

from core_server.kernel.domain.errors import ParameterInvalid
from core_server.kernel.domain.money import check_charge_amount, normalize_currency
from core_server.payments.domain.charge import ChargeDraft

MAX_DESCRIPTION = 500
MAX_URL = 500
MAX_METADATA_KEYS = 50
MAX_METADATA_KEY = 40
MAX_METADATA_VALUE = 500
MAX_EMAIL = 254

_EMAIL_RE = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")


def validate_url(value: str, param: str) -> str:
    """Absolute http(s) URL with a host, at most 500 characters."""
    if len(value) > MAX_URL:
        raise ParameterInvalid(f"{param} must be at most {MAX_URL} characters.", param=param)
    try:
        parts = urlsplit(value)
    except ValueError as exc:
        raise ParameterInvalid(f"{param} must be a valid URL.", param=param) from exc
    if parts.scheme not in ("http", "https") or not parts.netloc or any(c.isspace() for c in value):
        raise ParameterInvalid(f"{param} must be an absolute http(s) URL.", param=param)
    return value


def validate_email(value: str, param: str) -> str:
    if len(value) > MAX_EMAIL or not _EMAIL_RE.match(value):
        raise ParameterInvalid(f"{param} must be a valid e-mail address.", param=param)
    return value


def validate_metadata(metadata: Mapping[str, str]) -> dict[str, str]:
    """At most 50 keys, key ≤ 40 characters, value a string ≤ 500 characters."""
    if len(metadata) > MAX_METADATA_KEYS:
        raise ParameterInvalid(f"metadata may have at most {MAX_METADATA_KEYS} keys.", param="metadata")
    for key, value in metadata.items():
        if not key or len(key) > MAX_METADATA_KEY:
            raise ParameterInvalid(
                f"metadata keys must be 1 to {MAX_METADATA_KEY} characters.", param=f"metadata[{key}]"
            )
        if len(value) > MAX_METADATA_VALUE:
            raise ParameterInvalid(
                f"metadata values must be at most {MAX_METADATA_VALUE} characters.", param=f"metadata[{key}]"
            )
    return dict(metadata)


def validate_charge_draft(
    *,
    amount: int,
    currency: str,
    return_url: str,
    description: str | None,
    metadata: Mapping[str, str],
    cancel_url: str | None,
    customer_email: str | None,
) -> ChargeDraft:
    """Checks in the order of the spec's body table, so the first bad field is the one named."""
    check_charge_amount(amount)
    code = normalize_currency(currency)
    if description is not None and len(description) > MAX_DESCRIPTION:
        raise ParameterInvalid(
            f"description must be at most {MAX_DESCRIPTION} characters.", param="description"
        )
    clean_metadata = validate_metadata(metadata)
    validate_url(return_url, "return_url")
    if cancel_url is not None:
        validate_url(cancel_url, "cancel_url")
    if customer_email is not None:
        validate_email(customer_email, "customer_email")
    return ChargeDraft(
        amount=amount,
        currency=code,
        return_url=return_url,
        description=description,
        metadata=clean_metadata,
        cancel_url=cancel_url,
        customer_email=customer_email,
    )
