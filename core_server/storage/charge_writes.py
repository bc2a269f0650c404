"""The two writes of a charge, each a single statement: one round trip and one commit apiece.

A create writes the charge, its `charge.created` event with the deliveries and (with an
Idempotency-Key) the key's claim completed with its answer; the charge is written only if the key was
free (FIRST_CLAIM_CTES). A save is the fenced update of an owned charge with its new refunds, its
dispute, its events with their deliveries and the stored idempotent answer; if the fence moved
(another process owns the charge) the update matches no row and nothing else is written either.

Arrays carry the variable parts (refunds, events), so each statement has one text, prepared once per
connection (psycopg prepares a statement after a few executions).
"""

from __future__ import annotations

from functools import cache
from typing import Any

from core_server.application.ports import IdempotencyCompletion
from core_server.domain.charge import Charge
from core_server.storage.charge_rows import charge_params
from core_server.storage.idempotency_store import FIRST_CLAIM_CTES
from core_server.storage.outbox import charge_outbox_events
from core_server.storage.outbox_sql import NOTIFY_COLUMN, event_ctes, event_params

COLUMNS = [
    "id", "merchant_id", "environment", "amount", "currency", "status", "description", "metadata",
    "return_url", "cancel_url", "customer_email", "idempotency_key", "payment_method", "payment_details",
    "transaction_id", "failure_code", "authorized_at", "authorization_due_at", "amount_captured", "fee_amount_cents",
    "net_amount_cents", "captured_at", "amount_refunded", "refunded_at", "voided_at", "disputed_at",
    "expires_at", "created_at",
]
MUTABLE = [c for c in COLUMNS if c not in {"id", "merchant_id", "environment", "amount", "currency",
                                           "return_url", "cancel_url", "created_at", "idempotency_key"}]

_NEW_CHARGE = (
    f"new_charge AS (INSERT INTO charges ({', '.join(COLUMNS)}) "
    f"SELECT {', '.join(f'%({c})s' for c in COLUMNS)} {{condition}} RETURNING id)"
)
_CREATE = "WITH {claim}" + _NEW_CHARGE + ",{events}\nSELECT (SELECT count(*) FROM new_charge) AS written, {notify}"
CREATE_PLAIN = _CREATE.format(claim="", condition="", events=event_ctes("new_charge"), notify=NOTIFY_COLUMN)
CREATE_CLAIMED = _CREATE.format(
    claim=FIRST_CLAIM_CTES + ",\n",
    condition="WHERE EXISTS (SELECT 1 FROM first_claimed)",
    events=event_ctes("new_charge"),
    notify=NOTIFY_COLUMN,
)

_UPDATED = (
    f"updated AS (UPDATE charges SET {', '.join(f'{c} = %({c})s' for c in MUTABLE)}, "
    "version = version + 1, updated_at = now() WHERE id = %(id)s AND fence_token = %(fence)s RETURNING id)"
)
_REFUNDS = """
saved_refunds AS (
  INSERT INTO refunds (id, charge_id, amount, currency, status, reason, created_at)
  SELECT r.id, updated.id, r.amount, r.currency, r.status, r.reason, r.created_at
    FROM updated,
         unnest(%(refund_ids)s::text[], %(refund_amounts)s::bigint[], %(refund_currencies)s::text[],
                %(refund_statuses)s::text[], %(refund_reasons)s::text[], %(refund_times)s::timestamptz[])
           AS r(id, amount, currency, status, reason, created_at)
  ON CONFLICT (id) DO NOTHING
  RETURNING 1
)"""
_DISPUTE = """
saved_dispute AS (
  INSERT INTO disputes (id, charge_id, amount, currency, status, fee, prior_status, created_at)
  SELECT %(dispute_id)s, updated.id, %(dispute_amount)s, %(dispute_currency)s, %(dispute_status)s,
         %(dispute_fee)s, %(dispute_prior_status)s, %(dispute_created_at)s
    FROM updated
  ON CONFLICT (id) DO UPDATE SET status = EXCLUDED.status
  RETURNING 1
)"""
_COMPLETION = """
saved_answer AS (
  UPDATE idempotency_keys SET state = 'completed', response = %(answer)s
   WHERE scope = %(answer_scope)s AND key = %(answer_key)s AND state = 'in_progress'
     AND EXISTS (SELECT 1 FROM updated)
  RETURNING 1
)"""


def create_statement(
    charge: Charge, checkout_base_url: str, claim: dict[str, Any] | None
) -> tuple[str, dict[str, Any]]:
    """The statement of a create and its parameters (`claim`: PgIdempotencyStore.first_claim_params).

    Also what the bench's pgbench ceiling runs (scripts/bench/pgbench_ceiling.py)."""
    events = charge_outbox_events(charge, checkout_base_url)
    params = {**charge_params(charge), **event_params(charge.merchant_id, charge.environment.value, charge.id, events)}
    if claim is None:
        return CREATE_PLAIN, params
    return CREATE_CLAIMED, {**params, **claim}


@cache
def _save_text(with_dispute: bool, with_answer: bool) -> str:
    ctes = [_UPDATED, _REFUNDS]
    if with_dispute:
        ctes.append(_DISPUTE)
    ctes.append(event_ctes("updated"))
    if with_answer:
        ctes.append(_COMPLETION)
    return "WITH " + ",\n".join(ctes) + f"\nSELECT (SELECT count(*) FROM updated) AS written, {NOTIFY_COLUMN}"


def save_statement(
    charge: Charge, fence: int, completion: IdempotencyCompletion | None, checkout_base_url: str
) -> tuple[str, dict[str, Any]]:
    """The fenced save of an owned charge; `written` is 0 when the fence moved (nothing was written)."""
    refunds = charge.refunds
    params: dict[str, Any] = {
        **charge_params(charge),
        "fence": fence,
        "refund_ids": [r.id for r in refunds],
        "refund_amounts": [r.amount for r in refunds],
        "refund_currencies": [r.currency for r in refunds],
        "refund_statuses": [r.status for r in refunds],
        "refund_reasons": [r.reason for r in refunds],
        "refund_times": [r.created for r in refunds],
        **event_params(charge.merchant_id, charge.environment.value, charge.id,
                       charge_outbox_events(charge, checkout_base_url)),
    }
    dispute = charge.dispute
    if dispute is not None:
        params.update({
            "dispute_id": dispute.id, "dispute_amount": dispute.amount, "dispute_currency": dispute.currency,
            "dispute_status": dispute.status, "dispute_fee": dispute.fee,
            "dispute_prior_status": dispute.prior_status, "dispute_created_at": dispute.created,
        })
    if completion is not None:
        params.update({"answer": completion.response, "answer_scope": completion.scope,
                       "answer_key": completion.key})
    return _save_text(dispute is not None, completion is not None), params
