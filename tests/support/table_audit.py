"""Reads the tables after a fault and lists every half-written change: the database is the witness.

Each charge change commits with its events and refunds in one transaction (docs/webhooks.md
events), and each billing step with its invoice, credit and prorations (docs/billing.md), so
after any crash, restart or dropped connection these must all hold.
"""

from __future__ import annotations

import psycopg
from psycopg.rows import dict_row

# Each query returns the rows that break one invariant; the name says which.
CHECKS = {
    "charge without exactly one charge.created event": """
        SELECT c.id, count(e.id) AS created_events FROM charges c
        LEFT JOIN events e ON e.object_id = c.id AND e.type = 'charge.created'
        GROUP BY c.id HAVING count(e.id) <> 1""",
    "charge event whose charge does not exist (orphaned)": """
        SELECT e.id, e.type, e.object_id FROM events e
        WHERE e.type LIKE 'charge.%' AND NOT EXISTS (SELECT 1 FROM charges c WHERE c.id = e.object_id)""",
    "amount_refunded differs from the sum of its refunds": """
        SELECT c.id, c.amount_refunded, coalesce(sum(r.amount), 0) AS refunds FROM charges c
        LEFT JOIN refunds r ON r.charge_id = c.id
        GROUP BY c.id HAVING c.amount_refunded <> coalesce(sum(r.amount), 0)""",
    "refund count differs from charge.refunded events": """
        SELECT c.id,
            (SELECT count(*) FROM refunds r WHERE r.charge_id = c.id) AS refunds,
            (SELECT count(*) FROM events e WHERE e.object_id = c.id AND e.type = 'charge.refunded') AS events
        FROM charges c
        WHERE (SELECT count(*) FROM refunds r WHERE r.charge_id = c.id)
           <> (SELECT count(*) FROM events e WHERE e.object_id = c.id AND e.type = 'charge.refunded')""",
    "authorized charge without exactly one charge.completed event": """
        SELECT c.id, c.status FROM charges c
        WHERE c.authorized_at IS NOT NULL
          AND (SELECT count(*) FROM events e
               WHERE e.object_id = c.id AND e.type = 'charge.completed') <> 1""",
    "captured status without capture columns": """
        SELECT id, status FROM charges
        WHERE status IN ('captured', 'partially_refunded', 'refunded')
          AND (amount_captured IS NULL OR captured_at IS NULL OR net_amount_cents IS NULL)""",
    "idempotency claim still in progress": """
        SELECT scope, key, locked_until FROM idempotency_keys WHERE state = 'in_progress'""",
    # Billing (docs/billing.md): a period is invoiced once, each attempt is one charge named
    # by (invoice, attempt), and the PAID invoice, its credit and its billed prorations are one write.
    "period invoiced twice (double-billed)": """
        SELECT subscription_id, period_start, count(*) AS invoices FROM invoices
        WHERE billing_reason IN ('subscription_create', 'subscription_cycle', 'subscription_resume')
        GROUP BY subscription_id, period_start HAVING count(*) > 1""",
    "invoice charge whose invoice does not exist": """
        SELECT c.id, c.invoice_id, c.invoice_attempt FROM charges c
        WHERE c.invoice_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM invoices i WHERE i.id = c.invoice_id)""",
    # An attempt without a payment method makes no charge, so attempts may outnumber charges; a charge
    # whose attempt the invoice never recorded is money taken that the invoice does not know.
    "charge the invoice does not know (half-billed)": """
        SELECT c.id, c.status, c.invoice_id, c.invoice_attempt, i.attempt_count, i.status AS invoice_status
        FROM charges c JOIN invoices i ON i.id = c.invoice_id
        WHERE c.invoice_attempt > i.attempt_count""",
    "paid invoice without its charge": """
        SELECT i.id, i.total_cents, i.charge_id FROM invoices i
        WHERE i.status = 'PAID' AND i.total_cents > 0
          AND NOT EXISTS (SELECT 1 FROM charges c WHERE c.id = i.charge_id AND c.invoice_id = i.id)""",
    "paid invoice without its credit": """
        SELECT i.id, i.total_cents FROM invoices i
        WHERE i.status = 'PAID'
          AND NOT EXISTS (SELECT 1 FROM invoice_credits ic WHERE ic.invoice_id = i.id)""",
    "credit of an invoice that is not paid": """
        SELECT ic.invoice_id, i.status FROM invoice_credits ic JOIN invoices i ON i.id = ic.invoice_id
        WHERE i.status <> 'PAID'""",
    "billed proration whose invoice is not paid": """
        SELECT p.id, p.invoice_id, i.status FROM pending_prorations p
        LEFT JOIN invoices i ON i.id = p.invoice_id
        WHERE p.billed AND i.status IS DISTINCT FROM 'PAID'""",
}


def half_written(dsn: str) -> dict[str, list[dict[str, object]]]:
    """Invariant name → offending rows, for every invariant that does not hold (empty when all is well)."""
    found: dict[str, list[dict[str, object]]] = {}
    with psycopg.connect(dsn, row_factory=dict_row, connect_timeout=10) as conn:
        for name, query in CHECKS.items():
            rows = conn.execute(query).fetchall()
            if rows:
                found[name] = rows[:10]
    return found


def count(dsn: str, query: str, *params: object) -> int:
    with psycopg.connect(dsn, connect_timeout=10) as conn:
        row = conn.execute(query, params).fetchone()
    return int(row[0]) if row else 0
