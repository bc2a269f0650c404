"""Validation of a create-charge request into a ChargeDraft (spec limits, DESIGN §4)."""

from __future__ import annotations

from collections.abc import Mapping

from core_server.kernel.domain.errors import ParameterInvalid
from core_server.kernel.domain.input_rules import validate_email, validate_metadata, validate_url
from core_server.kernel.domain.money import check_charge_amount, normalize_currency
from core_server.payments.domain.charge import ChargeDraft

MAX_DESCRIPTION = 500


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
