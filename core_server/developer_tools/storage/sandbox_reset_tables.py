"""What a TEST reset deletes (DESIGN §10.5): ONE ordered list of (object name, table, scope).

A table added later goes in with one line, children before the tables they reference (the deletes run in
this order, in one transaction). Every scope names the merchant's TEST rows only — by its own
`merchant_id`/`environment`, or through the TEST parent it belongs to — so LIVE is never touched. Kept
on purpose: API keys, webhook endpoints, CLI sessions (the developer's connection, not sandbox data) and
the operator's fx rates. A `None` name deletes without reporting (the platform's own bookkeeping rows).

The answer's `deleted` lists every reported name with its count, 0 included, in this order.
"""

from __future__ import annotations

from dataclasses import dataclass

OWNED = "merchant_id = %(merchant_id)s AND environment = 'test'"
"""The scope of a table that carries its own merchant and environment."""


def child_of(parent: str, column: str) -> str:
    """The scope of a table whose rows belong to a TEST row of `parent` through `column`."""
    return f"{column} IN (SELECT id FROM {parent} WHERE {OWNED})"


@dataclass(frozen=True, slots=True)
class ResetStep:
    name: str | None
    table: str
    scope: str = OWNED


RESET_STEPS: tuple[ResetStep, ...] = (
    # The event log and what hangs off it (webhook_attempts go with their delivery, ON DELETE CASCADE).
    ResetStep("cli_session_response", "cli_session_responses", child_of("events", "event_id")),
    ResetStep("webhook_delivery", "webhook_deliveries", child_of("events", "event_id")),
    ResetStep("event", "events"),
    ResetStep("portal_session", "portal_sessions"),
    # The ledger and payouts.
    ResetStep("balance_transaction", "balance_transactions"),
    ResetStep("payout", "payouts"),
    # Recurring billing, children first.
    ResetStep(None, "invoice_credits"),
    ResetStep(None, "pending_prorations", child_of("subscriptions", "subscription_id")),
    ResetStep(None, "subscription_notices", child_of("subscriptions", "subscription_id")),
    ResetStep("invoice", "invoices"),
    ResetStep("subscription_item", "subscription_items", child_of("subscriptions", "subscription_id")),
    ResetStep("subscription", "subscriptions"),
    ResetStep("payment_method", "payment_methods"),
    ResetStep("customer_balance_transaction", "customer_balance_transactions"),
    ResetStep(None, "customer_balances"),
    ResetStep("customer", "customers"),
    ResetStep("price", "prices"),
    ResetStep("plan", "plans"),
    ResetStep("tax_rate", "tax_rates"),
    # Charges, children first.
    ResetStep("dispute", "disputes", child_of("charges", "charge_id")),
    ResetStep("refund", "refunds", child_of("charges", "charge_id")),
    ResetStep("charge", "charges"),
    # Stored answers of the merchant's TEST requests (scope `<merchant>:test`), but the reset's own.
    ResetStep(
        None,
        "idempotency_keys",
        "scope = %(merchant_id)s || ':test' AND key IS DISTINCT FROM %(keep_key)s",
    ),
)


def delete_statement(step: ResetStep) -> str:
    return f"DELETE FROM {step.table} WHERE {step.scope}"
