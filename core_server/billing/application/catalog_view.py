"""The one public shape of each catalog object (tax rate, plan, price), carried to the gateway as JSON.

Rendered here so that `GET`, lists, creates and any later event `data.object` agree (DESIGN §9).
"""

from __future__ import annotations

from core_server.billing.domain.catalog import Plan, Price
from core_server.billing.domain.tax import TaxRate, format_percentage
from core_server.kernel.domain.public_json import JSON, compact_json, unix_seconds


def tax_rate_view(rate: TaxRate) -> JSON:
    """`percentage` stays a decimal string: a JSON number would be a float on most clients."""
    return {
        "id": rate.id,
        "object": "tax_rate",
        "percentage": format_percentage(rate.percentage),
        "display_name": rate.display_name,
        "jurisdiction": rate.jurisdiction,
        "inclusive": rate.inclusive,
        "country": rate.country,
        "state": rate.state,
        "active": rate.active,
        "metadata": dict(rate.metadata),
        "created": unix_seconds(rate.created),
        "livemode": rate.livemode,
    }


def plan_view(plan: Plan) -> JSON:
    return {
        "id": plan.id,
        "object": "plan",
        "name": plan.name,
        "description": plan.description,
        "active": plan.active,
        "metadata": dict(plan.metadata),
        "created": unix_seconds(plan.created),
        "livemode": plan.livemode,
    }


def price_view(price: Price) -> JSON:
    terms = price.terms
    return {
        "id": price.id,
        "object": "price",
        "plan": price.plan_id,
        "amount_cents": terms.amount_cents,
        "currency": terms.currency,
        "interval": terms.interval,
        "interval_count": terms.interval_count,
        "trial_period_days": terms.trial_period_days,
        "active": price.active,
        "metadata": dict(price.metadata),
        "created": unix_seconds(price.created),
        "livemode": price.livemode,
    }


def dumps(view: JSON) -> str:
    """The view as carried in `object_json`."""
    return compact_json(view)
