"""The catalogue of event types a webhook endpoint may subscribe to, and the subscription rule."""

from __future__ import annotations

from collections.abc import Sequence

from core_server.kernel.domain.errors import ParameterInvalid

WILDCARD = "*"
"""`events: ["*"]` subscribes to every type, including types added later (DESIGN §7)."""

EVENT_TYPES: tuple[str, ...] = (
    # Spec "Events" table, in its order. A new emitter (billing, payouts) only adds its rows here.
    "charge.created",
    "charge.completed",
    "charge.failed",
    "charge.refunded",
    "charge.disputed",
    "payout.created",
    "payout.completed",
    "payout.failed",
    "invoice.paid",
    "invoice.payment_failed",
    "invoice.upcoming",
    "subscription.created",
    "subscription.canceled",
    "subscription.trial_will_end",
    "subscription_item.created",
    "subscription_item.updated",
    "subscription_item.deleted",
    # Billing part 1 (issue 13): customers and the payment-method vault.
    "customer.created",
    "customer.updated",
    "payment_method.attached",
    "payment_method.detached",
    # Billing part 2 (issue 14): every other change of a subscription (price, items' base, pause…).
    "subscription.updated",
    # Billing part 3 (issue 15): an invoice opened for collection, and a manual void.
    "invoice.created",
    "invoice.voided",
)
_KNOWN = frozenset(EVENT_TYPES)
MAX_SUBSCRIBED = len(EVENT_TYPES) + 1


def is_known_type(event_type: str) -> bool:
    return event_type in _KNOWN


def validate_subscription(events: Sequence[str]) -> tuple[str, ...]:
    """At least one type; each known or `*`; duplicates dropped, first spelling kept in order.

    DESIGN §5a: an unknown webhook event type is `parameter_invalid` with `param` = `events`.
    """
    if not events:
        message = 'events must name at least one event type, or ["*"] for all.'
        raise ParameterInvalid(message, param="events")
    if len(events) > MAX_SUBSCRIBED:
        raise ParameterInvalid(f"events may name at most {MAX_SUBSCRIBED} types.", param="events")
    seen: dict[str, None] = {}
    for event_type in events:
        if event_type != WILDCARD and event_type not in _KNOWN:
            shown = event_type[:100]
            raise ParameterInvalid(f"Unknown event type: '{shown}'.", param="events")
        seen.setdefault(event_type, None)
    if WILDCARD in seen and len(seen) > 1:
        raise ParameterInvalid('"*" already subscribes to every type; send it alone.', param="events")
    return tuple(seen)


def parse_type_filter(value: str) -> tuple[str | None, str | None]:
    """A list filter: an exact type, or `group.*` (Stripe's spelling). Returns (exact, prefix)."""
    if value.endswith(".*"):
        prefix = value[:-1]
        if any(t.startswith(prefix) for t in EVENT_TYPES):
            return None, prefix
    elif value in _KNOWN:
        return value, None
    raise ParameterInvalid(f"Unknown event type: '{value[:100]}'.", param="type")
