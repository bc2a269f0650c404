"""The two writes of a subscription, each a single statement (kernel/storage/fenced_save.py).

A create writes the subscription, its base item, its first invoice (an ACTIVE start is invoiced at
once) with any prorations, its events with their deliveries and (with an Idempotency-Key) the key's
claim completed with its answer; nothing is written if the key was not free. A save is the fenced
update of an owned subscription with its items, prorations and the invoices the turn touched, its
events and the stored idempotent answer; if the fence moved (another process owns the subscription)
the update matches no row and nothing else is written either.

The children are upserts by id from arrays, and each row takes its current values. A save hands over
only the children that differ from the state the process last saved or loaded (the actor keeps it), so a
turn that advanced a period rewrites neither its items nor its notices; without that state, every item,
pending proration and invoice in memory.
An upsert only ever updates a row of the same subscription: a fresh id that met another's row (a
collision of random ids) writes nothing rather than another tenant's row.
An invoice's lines and totals never change once written, so its upsert updates only its status and
payment fields. Two children are written once and never changed: a notice (by its key, so the same notice
handed over by every later save is a no-op) and a paid invoice's merchant credit (only for an invoice the
same statement actually wrote, so a colliding id never credits another subscription's invoice). Beside the
credit, the same statement writes the invoice's `subscription` balance transaction (DESIGN §9), gated the
same way (kernel/storage/ledger_rows.py, joined to `saved_invoices` by source) and once per invoice by the
ledger's (type, source) index; the invoice's charge writes no `charge` row, so the money is booked once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, TypeVar

from core_server.billing.domain.subscription import Subscription
from core_server.billing.storage.subscription_rows import (
    credit_params,
    credited,
    invoice_params,
    item_params,
    notice_params,
    proration_params,
    subscription_params,
)
from core_server.kernel.application.ports import TurnWrite
from core_server.kernel.storage.fenced_save import FencedCreate, FencedSave, turn_params
from core_server.kernel.storage.ledger_rows import ledger_params, ledger_rows_cte


class _Identified(Protocol):
    @property
    def id(self) -> str: ...


_Child = TypeVar("_Child", bound=_Identified)

# Every column of a new subscription; the fence token starts at its default (1 until the first activation).
_INSERT_SUBSCRIPTION = """
INSERT INTO subscriptions (
  id, merchant_id, environment, customer_id, price_id, currency, billing_interval, interval_count, status,
  collection_method, tax_rate_id, trial_start, trial_end, billing_anchor, period_index, current_period_start,
  current_period_end, cancel_at_period_end, canceled_at, cancel_reason, paused_at, unpaid_at, latest_invoice,
  metadata, idempotency_key, created_at, cancel_refund, cancel_refund_key, cancel_refund_charge,
  cancel_refund_cents, next_step_at)
SELECT
  %(id)s, %(merchant_id)s, %(environment)s, %(customer_id)s, %(price_id)s, %(currency)s, %(interval)s,
  %(interval_count)s, %(status)s, %(collection_method)s, %(tax_rate_id)s, %(trial_start)s, %(trial_end)s,
  %(billing_anchor)s, %(period_index)s, %(current_period_start)s, %(current_period_end)s,
  %(cancel_at_period_end)s, %(canceled_at)s, %(cancel_reason)s, %(paused_at)s, %(unpaid_at)s,
  %(latest_invoice)s, %(metadata)s, %(idempotency_key)s, %(created_at)s, %(cancel_refund)s,
  %(cancel_refund_key)s, %(cancel_refund_charge)s, %(cancel_refund_cents)s, %(next_step_at)s"""

# The fenced update: every column a trigger may change (never the owner, customer, currency, interval,
# key or creation time, nor the billing run's claim), only while this process's fence token is the row's.
# next_step_at is computed from the saved state itself (subscription_params), so no write can leave it
# behind the steps it changed.
_UPDATE_SUBSCRIPTION = """
  UPDATE subscriptions
     SET price_id = %(price_id)s, status = %(status)s, collection_method = %(collection_method)s,
         tax_rate_id = %(tax_rate_id)s, trial_start = %(trial_start)s, trial_end = %(trial_end)s,
         billing_anchor = %(billing_anchor)s, period_index = %(period_index)s,
         current_period_start = %(current_period_start)s, current_period_end = %(current_period_end)s,
         cancel_at_period_end = %(cancel_at_period_end)s, canceled_at = %(canceled_at)s,
         cancel_reason = %(cancel_reason)s, paused_at = %(paused_at)s, unpaid_at = %(unpaid_at)s,
         latest_invoice = %(latest_invoice)s, metadata = %(metadata)s, cancel_refund = %(cancel_refund)s,
         cancel_refund_key = %(cancel_refund_key)s, cancel_refund_charge = %(cancel_refund_charge)s,
         cancel_refund_cents = %(cancel_refund_cents)s, next_step_at = %(next_step_at)s,
         version = version + 1,
         updated_at = now()
   WHERE id = %(id)s AND fence_token = %(fence)s"""

# Items: inserted when new, otherwise their changeable fields (an item never changes owner or base-ness).
_SAVE_ITEMS = """
saved_items AS (
  INSERT INTO subscription_items (id, subscription_id, price_id, unit_amount_cents, quantity, status,
                                  proration_behavior, proration_amount_cents, is_base_item, added_at,
                                  removed_at, metadata, created_at, billed)
  SELECT i.id, written_row.id, i.price_id, i.unit_amount_cents, i.quantity, i.status, i.behavior,
         i.proration_amount, i.is_base, i.added_at, i.removed_at, i.metadata, i.created_at, i.billed
    FROM written_row,
         unnest(%(item_ids)s::text[], %(item_price_ids)s::text[], %(item_unit_amounts)s::bigint[],
                %(item_quantities)s::integer[], %(item_statuses)s::text[], %(item_behaviors)s::text[],
                %(item_proration_amounts)s::bigint[], %(item_is_base)s::boolean[],
                %(item_added_at)s::timestamptz[], %(item_removed_at)s::timestamptz[],
                %(item_metadata)s::jsonb[], %(item_created_at)s::timestamptz[], %(item_billed)s::jsonb[])
           AS i(id, price_id, unit_amount_cents, quantity, status, behavior, proration_amount, is_base,
                added_at, removed_at, metadata, created_at, billed)
  ON CONFLICT (id) DO UPDATE
     SET price_id = EXCLUDED.price_id, unit_amount_cents = EXCLUDED.unit_amount_cents,
         quantity = EXCLUDED.quantity, status = EXCLUDED.status,
         proration_behavior = EXCLUDED.proration_behavior,
         proration_amount_cents = EXCLUDED.proration_amount_cents, removed_at = EXCLUDED.removed_at,
         metadata = EXCLUDED.metadata, billed = EXCLUDED.billed
   WHERE subscription_items.subscription_id = EXCLUDED.subscription_id
  RETURNING 1
)"""

# Prorations: the line never changes; an invoice takes it, then it is billed.
_SAVE_PRORATIONS = """
saved_prorations AS (
  INSERT INTO pending_prorations (id, subscription_id, item_id, kind, description, amount_cents, quantity,
                                  price_id, period_start, period_end, proration, invoice_id, billed,
                                  created_at)
  SELECT p.id, written_row.id, p.item_id, p.kind, p.description, p.amount_cents, p.quantity, p.price_id,
         p.period_start, p.period_end, p.proration, p.invoice_id, p.billed, p.created_at
    FROM written_row,
         unnest(%(pp_ids)s::text[], %(pp_item_ids)s::text[], %(pp_kinds)s::text[],
                %(pp_descriptions)s::text[], %(pp_amounts)s::bigint[], %(pp_quantities)s::integer[],
                %(pp_price_ids)s::text[], %(pp_period_starts)s::timestamptz[],
                %(pp_period_ends)s::timestamptz[], %(pp_prorations)s::jsonb[], %(pp_invoice_ids)s::text[],
                %(pp_billed)s::boolean[], %(pp_created_at)s::timestamptz[])
           AS p(id, item_id, kind, description, amount_cents, quantity, price_id, period_start, period_end,
                proration, invoice_id, billed, created_at)
  ON CONFLICT (id) DO UPDATE SET invoice_id = EXCLUDED.invoice_id, billed = EXCLUDED.billed
   WHERE pending_prorations.subscription_id = EXCLUDED.subscription_id
  RETURNING 1
)"""

# Invoices: lines and totals are fixed at creation; attempts and payment move the rest. A second invoice
# of one period (create, cycle or resume) is refused by invoices_one_per_period. Returns the ids written
# (not an id of another subscription's invoice), which the credits' insert takes.
_SAVE_INVOICES = """
saved_invoices AS (
  INSERT INTO invoices (id, merchant_id, environment, subscription_id, customer_id, currency, lines,
                        subtotal_cents, tax_cents, total_cents, tax_rate_id, status, billing_reason,
                        period_start, period_end, attempt_count, next_attempt_at, charge_id, paid_at,
                        created_at, first_failed_at, merchant_fee_cents, merchant_net_cents,
                        credit_applied_cents, amount_due_cents, failure_code)
  SELECT v.id, v.merchant_id, v.environment, written_row.id, v.customer_id, v.currency, v.lines,
         v.subtotal, v.tax, v.total, v.tax_rate_id, v.status, v.reason, v.period_start, v.period_end,
         v.attempts, v.next_attempt_at, v.charge_id, v.paid_at, v.created_at, v.first_failed_at,
         v.merchant_fee, v.merchant_net, v.credit_applied, v.amount_due, v.failure_code
    FROM written_row,
         unnest(%(inv_ids)s::text[], %(inv_merchant_ids)s::text[], %(inv_environments)s::text[],
                %(inv_customer_ids)s::text[], %(inv_currencies)s::text[], %(inv_lines)s::jsonb[],
                %(inv_subtotals)s::bigint[], %(inv_taxes)s::bigint[], %(inv_totals)s::bigint[],
                %(inv_tax_rate_ids)s::text[], %(inv_statuses)s::text[], %(inv_reasons)s::text[],
                %(inv_period_starts)s::timestamptz[], %(inv_period_ends)s::timestamptz[],
                %(inv_attempts)s::integer[], %(inv_next_attempts)s::timestamptz[],
                %(inv_charge_ids)s::text[], %(inv_paid_at)s::timestamptz[], %(inv_created_at)s::timestamptz[],
                %(inv_first_failed_at)s::timestamptz[], %(inv_merchant_fees)s::bigint[],
                %(inv_merchant_nets)s::bigint[], %(inv_credit_applied)s::bigint[],
                %(inv_amount_due)s::bigint[], %(inv_failure_codes)s::text[])
           AS v(id, merchant_id, environment, customer_id, currency, lines, subtotal, tax, total,
                tax_rate_id, status, reason, period_start, period_end, attempts, next_attempt_at, charge_id,
                paid_at, created_at, first_failed_at, merchant_fee, merchant_net, credit_applied, amount_due,
                failure_code)
  ON CONFLICT (id) DO UPDATE
     SET status = EXCLUDED.status, attempt_count = EXCLUDED.attempt_count,
         next_attempt_at = EXCLUDED.next_attempt_at, charge_id = EXCLUDED.charge_id,
         paid_at = EXCLUDED.paid_at, first_failed_at = EXCLUDED.first_failed_at,
         merchant_fee_cents = EXCLUDED.merchant_fee_cents, merchant_net_cents = EXCLUDED.merchant_net_cents,
         credit_applied_cents = EXCLUDED.credit_applied_cents, amount_due_cents = EXCLUDED.amount_due_cents,
         failure_code = EXCLUDED.failure_code, updated_at = now()
   WHERE invoices.subscription_id = EXCLUDED.subscription_id
  RETURNING id
)"""

# Notices: (kind, announced end) once per subscription; one already sent stays as it was.
_SAVE_NOTICES = """
saved_notices AS (
  INSERT INTO subscription_notices (subscription_id, kind, announced)
  SELECT written_row.id, n.kind, n.announced
    FROM written_row,
         unnest(%(notice_kinds)s::text[], %(notice_announced)s::timestamptz[]) AS n(kind, announced)
  ON CONFLICT (subscription_id, kind, announced) DO NOTHING
  RETURNING 1
)"""

# The merchant's credit of each PAID invoice this statement wrote (saved_invoices), once per invoice: the
# saves after the one that marked it PAID hand it over again and write nothing.
_SAVE_CREDITS = """
saved_credits AS (
  INSERT INTO invoice_credits (invoice_id, merchant_id, environment, currency, total_cents, fee_cents,
                               tax_cents, net_cents, created_at)
  SELECT c.invoice_id, %(merchant_id)s, %(environment)s, c.currency, c.total, c.fee, c.tax, c.net,
         c.created_at
    FROM unnest(%(cr_invoice_ids)s::text[], %(cr_currencies)s::text[], %(cr_totals)s::bigint[],
                %(cr_fees)s::bigint[], %(cr_taxes)s::bigint[], %(cr_nets)s::bigint[],
                %(cr_created_at)s::timestamptz[])
           AS c(invoice_id, currency, total, fee, tax, net, created_at)
    JOIN saved_invoices ON saved_invoices.id = c.invoice_id
  ON CONFLICT (invoice_id) DO NOTHING
  RETURNING 1
)"""

# The `subscription` balance transaction of each PAID invoice this statement wrote.
_SAVE_LEDGER = ledger_rows_cte("saved_ledger", gate="saved_invoices", by_source=True)

_CHILDREN = (
    ("items", _SAVE_ITEMS),
    ("prorations", _SAVE_PRORATIONS),
    ("invoices", _SAVE_INVOICES),
    ("notices", _SAVE_NOTICES),
    ("credits", _SAVE_CREDITS),
    ("ledger", _SAVE_LEDGER),
)
CREATE_SUBSCRIPTION = FencedCreate(_INSERT_SUBSCRIPTION, _CHILDREN)
SAVE_SUBSCRIPTION = FencedSave(_UPDATE_SUBSCRIPTION, _CHILDREN)


def _changed(current: Sequence[_Child], before: Sequence[_Child]) -> list[_Child]:
    """The children that are new or differ from the state last saved; the others are in their rows."""
    saved = {child.id: child for child in before}
    return [child for child in current if saved.get(child.id) != child]


def _children_params(
    subscription: Subscription, previous: Subscription | None = None
) -> tuple[frozenset[str], dict[str, Any]]:
    """The child CTEs a write has rows for, and their arrays (a statement text per combination): every
    child, or with `previous` (the state this process last saved or loaded) only those a turn changed —
    a turn that advanced a period rewrites neither its items nor its notices."""
    items = _changed(subscription.items, previous.items if previous else ())
    prorations = _changed(subscription.prorations, previous.prorations if previous else ())
    invoices = _changed(subscription.invoices, previous.invoices if previous else ())
    notices = subscription.notices - previous.notices if previous else subscription.notices
    params = {
        **item_params(items),
        **proration_params(prorations),
        **invoice_params(invoices),
        **notice_params(notices),
        **credit_params(invoices),
    }
    named = {"items"} if items else set()
    if prorations:
        named.add("prorations")
    if invoices:
        named.add("invoices")
    if notices:
        named.add("notices")
    if credited(invoices):
        named.add("credits")  # always with "invoices": it reads saved_invoices
    entries = [e for e in (i.ledger_entry() for i in invoices) if e is not None]
    if entries:
        named.add("ledger")  # always with "invoices": it reads saved_invoices
        params.update(ledger_params(subscription.merchant_id, subscription.environment, entries))
    return frozenset(named), params


def create_statement(
    subscription: Subscription, write: TurnWrite, claim: dict[str, Any] | None
) -> tuple[str, dict[str, Any]]:
    """The statement of a create and its parameters (`claim`: PgIdempotencyStore.first_claim_params)."""
    children, child_params = _children_params(subscription)
    params = {
        **subscription_params(subscription),
        **child_params,
        **turn_params(subscription.merchant_id, subscription.environment, write),
    }
    if claim is None:
        return CREATE_SUBSCRIPTION.text(claimed=False, children=children), params
    return CREATE_SUBSCRIPTION.text(claimed=True, children=children), {**params, **claim}


def save_statement(
    subscription: Subscription, fence: int, write: TurnWrite, previous: Subscription | None = None
) -> tuple[str, dict[str, Any]]:
    """The fenced save of an owned subscription; `written` is 0 when the fence moved (nothing was written)."""
    children, child_params = _children_params(subscription, previous)
    params = {
        **subscription_params(subscription),
        **child_params,
        **turn_params(subscription.merchant_id, subscription.environment, write),
        "fence": fence,
    }
    return SAVE_SUBSCRIPTION.text(children, with_answer=write.completion is not None), params
