-- Wave 3, money you can trust (DESIGN §10.1–§10.4): the customer credit balance and its transactions,
-- invoices that say how much of the balance they took and what was due, the part of each item a line
-- has billed (so a credit returns only billed time), and the refund an immediate cancel owes.

-- One balance per customer and currency: positive is credit held, negative a small carried amount.
-- Its row is the lock every change of that balance takes, so two invoices never spend one credit.
CREATE TABLE customer_balances (
    customer_id    text NOT NULL REFERENCES customers (id) ON DELETE CASCADE,
    currency       text NOT NULL,
    merchant_id    text NOT NULL,
    environment    text NOT NULL CHECK (environment IN ('live', 'test')),
    balance_cents  bigint NOT NULL,
    PRIMARY KEY (customer_id, currency)
);

-- Every change of a balance; the balance is always the sum of its transactions' amounts.
CREATE TABLE customer_balance_transactions (
    id                    text PRIMARY KEY CHECK (id ~ '^cbtxn_[A-Za-z0-9]{24}$'),
    merchant_id           text NOT NULL,
    environment           text NOT NULL CHECK (environment IN ('live', 'test')),
    customer_id           text NOT NULL REFERENCES customers (id) ON DELETE CASCADE,
    type                  text NOT NULL
        CHECK (type IN ('invoice_credit', 'applied_to_invoice', 'carried_amount', 'adjustment')),
    amount_cents          bigint NOT NULL CHECK (amount_cents <> 0),
    currency              text NOT NULL,
    invoice_id            text,
    description           text,
    ending_balance_cents  bigint NOT NULL,
    created_at            timestamptz NOT NULL,
    seq                   bigserial NOT NULL,
    CHECK ((type = 'adjustment') = (invoice_id IS NULL))
);
-- An invoice moves the balance once per kind of move: a retried settlement finds its rows.
CREATE UNIQUE INDEX customer_balance_transactions_once_per_invoice
    ON customer_balance_transactions (invoice_id, type) WHERE invoice_id IS NOT NULL;
CREATE INDEX customer_balance_transactions_listing ON customer_balance_transactions (customer_id, seq DESC);
CREATE INDEX customer_balance_transactions_of_merchant
    ON customer_balance_transactions (merchant_id, environment, created_at);

-- Totals may be negative now (a downgrade's credit larger than the period): the balance takes them.
ALTER TABLE invoices DROP CONSTRAINT invoices_tax_cents_check;
ALTER TABLE invoices DROP CONSTRAINT invoices_total_cents_check;
ALTER TABLE invoices
    ADD COLUMN credit_applied_cents  bigint,
    ADD COLUMN amount_due_cents      bigint CHECK (amount_due_cents >= 0),
    ADD COLUMN failure_code          text;

-- [[unit_amount_cents, quantity], ...]: the units whose time to the period's end a line has billed.
-- Items written before this column existed were billed by their period's invoice.
ALTER TABLE subscription_items ADD COLUMN billed jsonb NOT NULL DEFAULT '[]';
UPDATE subscription_items SET billed = jsonb_build_array(jsonb_build_array(unit_amount_cents, quantity))
 WHERE status = 'active';

-- The refund an immediate cancel with prorate owes (pending while cancel_refund_cents is set), the
-- refund made, and the cancel's Idempotency-Key, whose retry finishes and answers it.
ALTER TABLE subscriptions
    ADD COLUMN cancel_refund         text,
    ADD COLUMN cancel_refund_key     text,
    ADD COLUMN cancel_refund_charge  text,
    ADD COLUMN cancel_refund_cents   bigint CHECK (cancel_refund_cents > 0);
CREATE INDEX subscriptions_cancel_refund_due ON subscriptions (canceled_at) WHERE cancel_refund_cents IS NOT NULL;
-- PAST_DUE periods are invoiced at their ends too (DESIGN §10.4).
CREATE INDEX subscriptions_past_due_period ON subscriptions (current_period_end) WHERE status = 'PAST_DUE';
