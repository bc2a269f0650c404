"""Reading the closed sets of the billing API (statuses, proration behaviours) from request values."""

from __future__ import annotations

from typing import Any

from core_server.kernel.domain.errors import ParameterInvalid


def parse_choice(enum: Any, value: str | None, default: Any, param: str) -> Any:
    """`value` as a member of `enum`; None gives `default`; anything else is parameter_invalid on `param`."""
    if value is None:
        return default
    try:
        return enum(value)
    except ValueError:
        allowed = ", ".join(member.value for member in enum)
        raise ParameterInvalid(f"{param} must be one of: {allowed}.", param=param) from None
