-- The balance ledger (DESIGN §9, issue 16): every money movement is one balance transaction, written by
-- the statement that makes the movement (a charge's fenced save, a subscription's save of its PAID
-- invoice), never by a later job. The balance is the sum of the rows' `net`; a row is `available` once
-- its `available_on` (creation + 2 days, at the merchant's time) has passed, which reads decide.

-- Captures from before the fee cap (fee > captured amount, fee + net <> amount) take the capped fee, so
-- the charge and its balance transaction agree: fee = least(fee, amount_captured), net = the rest.
UPDATE charges
   SET fee_amount_cents = amount_captured, net_amount_cents = 0
 WHERE amount_captured IS NOT NULL AND fee_amount_cents > amount_captured;

CREATE TABLE balance_transactions (
    -- txn_ + 24 alphanumerics, made by the inserting statement (kernel/storage/ledger_rows.py).
    id            text PRIMARY KEY,
    merchant_id   text NOT NULL REFERENCES merchants (id),
    environment   text NOT NULL CHECK (environment IN ('live', 'test')),
    type          text NOT NULL CHECK (type IN ('charge', 'refund', 'dispute', 'dispute_won', 'subscription',
                                                'payout', 'payout_failure', 'conversion')),
    -- What moved the money: ch_ (charge), re_ (refund), dp_ (dispute, dispute_won), si_ (subscription),
    -- po_ (payout, payout_failure).
    source        text NOT NULL,
    amount        bigint NOT NULL,
    fee           bigint NOT NULL,
    tax           bigint NOT NULL DEFAULT 0,
    -- amount − fee − tax: what the row adds to (or takes from) the balance.
    net           bigint NOT NULL,
    currency      text NOT NULL,
    available_on  timestamptz NOT NULL,
    -- The payout that settled the row (payouts arrive later; no foreign key until their table exists).
    payout        text,
    -- The merchant's time of the movement (TEST: its sandbox clock).
    created_at    timestamptz NOT NULL,
    seq           bigserial NOT NULL,
    CHECK (net = amount - fee - tax)
);
-- One row per (type, source): a save handed the same movement again (a later save of a paid invoice, a
-- backfill run twice) writes nothing. Conversions come in pairs per payout and are outside it.
CREATE UNIQUE INDEX balance_transactions_one_per_source ON balance_transactions (type, source)
    WHERE type <> 'conversion';
-- GET /balance-transactions, newest first, with each filter; GET /balance sums a currency's rows.
CREATE INDEX balance_transactions_listing ON balance_transactions (merchant_id, environment, created_at DESC, seq DESC);
CREATE INDEX balance_transactions_by_type
    ON balance_transactions (merchant_id, environment, type, created_at DESC, seq DESC);
CREATE INDEX balance_transactions_by_currency
    ON balance_transactions (merchant_id, environment, currency, created_at DESC, seq DESC);
CREATE INDEX balance_transactions_by_payout ON balance_transactions (payout) WHERE payout IS NOT NULL;
-- Reconciliation's "every source has its row" joins by source.
CREATE INDEX balance_transactions_source ON balance_transactions (source);

-- Backfill: the movements made before the ledger existed, each with the row its statement would have
-- written (ON CONFLICT: applying this twice, or after a save already wrote a row, adds nothing). Ids
-- come from gen_random_uuid, as the writes' own; dated in whole seconds like the writes' rows;
-- available_on = created + 2 days.
INSERT INTO balance_transactions (id, merchant_id, environment, type, source, amount, fee, tax, net, currency,
                                  available_on, created_at)
SELECT 'txn_' || left(translate(encode(uuid_send(gen_random_uuid()) || uuid_send(gen_random_uuid()),
                                       'base64'), '+/=', 'pQz'), 24),
       m.merchant_id, m.environment, m.type, m.source, m.amount, m.fee, m.tax, m.amount - m.fee - m.tax,
       m.currency, date_trunc('second', m.created_at) + interval '2 days', date_trunc('second', m.created_at)
  FROM (
    -- Captures of checkout charges; an invoice's charge is booked as its invoice's `subscription` row.
    SELECT c.merchant_id, c.environment, 'charge' AS type, c.id AS source, c.amount_captured AS amount,
           c.fee_amount_cents AS fee, 0::bigint AS tax, c.currency, c.captured_at AS created_at
      FROM charges c
     WHERE c.amount_captured IS NOT NULL AND c.captured_at IS NOT NULL AND c.invoice_id IS NULL
    UNION ALL
    SELECT c.merchant_id, c.environment, 'refund', r.id, -r.amount, 0, 0, r.currency, r.created_at
      FROM refunds r JOIN charges c ON c.id = r.charge_id
    UNION ALL
    -- A dispute takes the amount at stake and the dispute fee.
    SELECT c.merchant_id, c.environment, 'dispute', d.id, -d.amount, d.fee, 0, d.currency, d.created_at
      FROM disputes d JOIN charges c ON c.id = d.charge_id
    UNION ALL
    -- A won dispute gives both back. Its closing time was never stored: dated at the dispute's opening.
    SELECT c.merchant_id, c.environment, 'dispute_won', d.id, d.amount, -d.fee, 0, d.currency, d.created_at
      FROM disputes d JOIN charges c ON c.id = d.charge_id
     WHERE d.status = 'won'
    UNION ALL
    -- Paid invoices: the credit written with them (0012), else the one on the invoice, else the rule
    -- itself; the fee capped at what the tax leaves, so fee + tax + net = total.
    SELECT i.merchant_id, i.environment, 'subscription', i.id, i.total_cents,
           least(coalesce(cr.fee_cents, i.merchant_fee_cents,
                          CASE WHEN i.total_cents = 0 THEN 0 ELSE (29 * i.total_cents + 30500) / 1000 END),
                 greatest(i.total_cents - i.tax_cents, 0)),
           least(i.tax_cents, i.total_cents), i.currency, coalesce(cr.created_at, i.paid_at, i.created_at)
      FROM invoices i LEFT JOIN invoice_credits cr ON cr.invoice_id = i.id
     WHERE i.status = 'PAID'
  ) m
ON CONFLICT (type, source) WHERE type <> 'conversion' DO NOTHING;
