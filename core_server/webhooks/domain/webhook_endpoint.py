"""Webhook endpoints: status, the limit per merchant, the secret format and the update rules."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import datetime

from core_server.kernel.domain.environment import Environment
from core_server.kernel.domain.errors import ParameterInvalid
from core_server.kernel.domain.ids import new_id

MAX_ENDPOINTS = 10
"""Spec Limits: webhook endpoints per merchant (both environments together, like API keys)."""
MAX_DESCRIPTION = 500
SECRET_PREFIX = "whsec_"
SECRET_BODY_LENGTH = 32


class WebhookEndpointStatus(enum.Enum):
    ENABLED = "enabled"
    DISABLED = "disabled"
    FAILING = "failing"
    """Set by the platform after 5 consecutive failures; deliveries continue."""

    @property
    def receives(self) -> bool:
        return self is not WebhookEndpointStatus.DISABLED


SETTABLE_STATUSES = {"enabled": WebhookEndpointStatus.ENABLED, "disabled": WebhookEndpointStatus.DISABLED}


@dataclass(frozen=True, slots=True)
class WebhookEndpoint:
    id: str
    merchant_id: str
    environment: Environment
    url: str
    events: tuple[str, ...]
    description: str | None
    status: WebhookEndpointStatus
    created: datetime
    secret: str | None = None
    """Set only on the object returned by creation; stored sealed, never in clear."""

    @property
    def livemode(self) -> bool:
        return self.environment.livemode


@dataclass(frozen=True, slots=True)
class EndpointChanges:
    """A validated PATCH: None leaves a field as it is; `clear_description` removes the description.

    Storage applies it field by field, so a status the dispatcher set meanwhile (failing) survives a
    PATCH that did not name `status`; explicitly enabling restarts the failure count.
    """

    url: str | None = None
    events: tuple[str, ...] | None = None
    description: str | None = None
    clear_description: bool = False
    status: WebhookEndpointStatus | None = None


def new_webhook_secret() -> str:
    """`whsec_` + 32 characters from a CSPRNG (~190 bits)."""
    return new_id(SECRET_PREFIX, SECRET_BODY_LENGTH)


def validate_description(description: str | None) -> str | None:
    if description is None or description == "":
        return None
    if len(description) > MAX_DESCRIPTION:
        message = f"description must be at most {MAX_DESCRIPTION} characters."
        raise ParameterInvalid(message, param="description")
    return description


def settable_status(value: str) -> WebhookEndpointStatus:
    """Merchants may enable or disable; `failing` is the platform's verdict, not theirs to set."""
    try:
        return SETTABLE_STATUSES[value]
    except KeyError:
        raise ParameterInvalid("status must be 'enabled' or 'disabled'.", param="status") from None
