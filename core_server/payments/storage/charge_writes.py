"""The two writes of a charge, each a single statement (kernel/storage/fenced_save.py).

A create writes the charge, its `charge.created` event with the deliveries and (with an
Idempotency-Key) the key's claim completed with its answer; the charge is written only if the key was
free. A save is the fenced update of an owned charge with its new refunds, its dispute, the balance
transactions of its turn (capture, refund, dispute, dispute won: kernel/storage/ledger_rows.py), its
events with their deliveries and the stored idempotent answer; if the fence moved (another process owns
the charge) the update matches no row and nothing else is written either — no ledger row without its
movement, no movement without its ledger row. A create writes no balance transaction: a charge is
never captured by its create (an invoice's charge is, but its invoice's `subscription` row books it).

Arrays carry the variable parts (refunds, events), so each statement has one text, prepared once per
connection (psycopg prepares a statement after a few executions).
"""

from __future__ import annotations

from typing import Any

from core_server.kernel.application.ports import TurnWrite
from core_server.kernel.storage.fenced_save import FencedCreate, FencedSave, turn_params
from core_server.kernel.storage.ledger_rows import LEDGER_ROWS_CTE, ledger_params
from core_server.payments.domain.charge import Charge
from core_server.payments.storage.charge_rows import charge_params

# Every column of a new charge; the fence token starts at its default (1 after the first activation).
_INSERT_CHARGE = """
INSERT INTO charges (
  id, merchant_id, environment, amount, currency, status, description, metadata, return_url, cancel_url,
  customer_email, idempotency_key, payment_method, payment_details, transaction_id, failure_code,
  authorized_at, authorization_due_at, amount_captured, fee_amount_cents, net_amount_cents, captured_at,
  amount_refunded, refunded_at, voided_at, disputed_at, expires_at, created_at, invoice_id, invoice_attempt,
  tax_amount_cents)
SELECT
  %(id)s, %(merchant_id)s, %(environment)s, %(amount)s, %(currency)s, %(status)s, %(description)s,
  %(metadata)s, %(return_url)s, %(cancel_url)s, %(customer_email)s, %(idempotency_key)s, %(payment_method)s,
  %(payment_details)s, %(transaction_id)s, %(failure_code)s, %(authorized_at)s, %(authorization_due_at)s,
  %(amount_captured)s, %(fee_amount_cents)s, %(net_amount_cents)s, %(captured_at)s, %(amount_refunded)s,
  %(refunded_at)s, %(voided_at)s, %(disputed_at)s, %(expires_at)s, %(created_at)s, %(invoice_id)s,
  %(invoice_attempt)s, %(tax_amount_cents)s"""

# The fenced update: every column a transition may change (never the owner, amount, currency, urls,
# key, invoice, tax share or creation time), only while this process's fence token is the row's
# (fenced_save makes it the `written_row` CTE).
_UPDATE_CHARGE = """
  UPDATE charges
     SET status = %(status)s, description = %(description)s, metadata = %(metadata)s,
         customer_email = %(customer_email)s, payment_method = %(payment_method)s,
         payment_details = %(payment_details)s, transaction_id = %(transaction_id)s,
         failure_code = %(failure_code)s, authorized_at = %(authorized_at)s,
         authorization_due_at = %(authorization_due_at)s, amount_captured = %(amount_captured)s,
         fee_amount_cents = %(fee_amount_cents)s, net_amount_cents = %(net_amount_cents)s,
         captured_at = %(captured_at)s, amount_refunded = %(amount_refunded)s, refunded_at = %(refunded_at)s,
         voided_at = %(voided_at)s, disputed_at = %(disputed_at)s, expires_at = %(expires_at)s,
         version = version + 1, updated_at = now()
   WHERE id = %(id)s AND fence_token = %(fence)s"""

# Refunds are append-only: the ones the row already has are skipped by their id.
_SAVE_REFUNDS = """
saved_refunds AS (
  INSERT INTO refunds (id, charge_id, amount, currency, status, reason, created_at)
  SELECT r.id, written_row.id, r.amount, r.currency, r.status, r.reason, r.created_at
    FROM written_row,
         unnest(%(refund_ids)s::text[], %(refund_amounts)s::bigint[], %(refund_currencies)s::text[],
                %(refund_statuses)s::text[], %(refund_reasons)s::text[], %(refund_times)s::timestamptz[])
           AS r(id, amount, currency, status, reason, created_at)
  ON CONFLICT (id) DO NOTHING
  RETURNING 1
)"""

# A charge has at most one dispute; closing it changes only its status.
_SAVE_DISPUTE = """
saved_dispute AS (
  INSERT INTO disputes (id, charge_id, amount, currency, status, fee, prior_status, created_at)
  SELECT %(dispute_id)s, written_row.id, %(dispute_amount)s, %(dispute_currency)s, %(dispute_status)s,
         %(dispute_fee)s, %(dispute_prior_status)s, %(dispute_created_at)s
    FROM written_row
  ON CONFLICT (id) DO UPDATE SET status = EXCLUDED.status
  RETURNING 1
)"""

CREATE_CHARGE = FencedCreate(_INSERT_CHARGE)
SAVE_CHARGE = FencedSave(
    _UPDATE_CHARGE, (("refunds", _SAVE_REFUNDS), ("dispute", _SAVE_DISPUTE), ("ledger", LEDGER_ROWS_CTE))
)


def create_statement(
    charge: Charge, write: TurnWrite, claim: dict[str, Any] | None
) -> tuple[str, dict[str, Any]]:
    """The statement of a create and its parameters (`claim`: PgIdempotencyStore.first_claim_params).

    Also what the bench's pgbench ceiling runs (scripts/bench/pgbench_ceiling.py)."""
    params = {**charge_params(charge), **turn_params(charge.merchant_id, charge.environment, write)}
    if claim is None:
        return CREATE_CHARGE.text(claimed=False), params
    return CREATE_CHARGE.text(claimed=True), {**params, **claim}


def save_statement(charge: Charge, fence: int, write: TurnWrite) -> tuple[str, dict[str, Any]]:
    """The fenced save of an owned charge; `written` is 0 when the fence moved (nothing was written)."""
    refunds = charge.refunds
    params: dict[str, Any] = {
        **charge_params(charge),
        **turn_params(charge.merchant_id, charge.environment, write),
        "fence": fence,
        "refund_ids": [r.id for r in refunds],
        "refund_amounts": [r.amount for r in refunds],
        "refund_currencies": [r.currency for r in refunds],
        "refund_statuses": [r.status for r in refunds],
        "refund_reasons": [r.reason for r in refunds],
        "refund_times": [r.created for r in refunds],
    }
    dispute = charge.dispute
    if dispute is not None:
        params.update(
            {
                "dispute_id": dispute.id,
                "dispute_amount": dispute.amount,
                "dispute_currency": dispute.currency,
                "dispute_status": dispute.status,
                "dispute_fee": dispute.fee,
                "dispute_prior_status": dispute.prior_status,
                "dispute_created_at": dispute.created,
            }
        )
    children = {"refunds"} if dispute is None else {"refunds", "dispute"}
    if charge.pending_ledger:
        children.add("ledger")
        params.update(ledger_params(charge.merchant_id, charge.environment, charge.pending_ledger))
    return SAVE_CHARGE.text(frozenset(children), with_answer=write.completion is not None), params
