-- The billing run, dunning and notices (DESIGN §9, issue 15). The run finds subscriptions with a step due
-- at their merchant's time (billing/storage/subscription_repository.py, due_for_billing) and claims them
-- for a while so that two cores take different batches; each notice goes out once per period, by the
-- primary key of subscription_notices; a paid invoice leaves the merchant's credit in invoice_credits.

-- Dunning counts its retries from the first failed attempt; a paid invoice keeps the merchant's credit.
ALTER TABLE invoices
    ADD COLUMN first_failed_at     timestamptz,
    ADD COLUMN merchant_fee_cents  bigint CHECK (merchant_fee_cents >= 0),
    ADD COLUMN merchant_net_cents  bigint CHECK (merchant_net_cents >= 0);

-- unpaid_at: when the last retry failed (the cancel comes 30 days later). billing_claimed_until: the
-- billing run's claim (real time); until then another core's run passes the subscription over.
ALTER TABLE subscriptions
    ADD COLUMN unpaid_at              timestamptz,
    ADD COLUMN billing_claimed_until  timestamptz;

-- Each notice once per period: `announced` is the period (or trial) end it announced.
CREATE TABLE subscription_notices (
    subscription_id  text NOT NULL REFERENCES subscriptions (id),
    kind             text NOT NULL CHECK (kind IN ('invoice.upcoming', 'subscription.trial_will_end')),
    announced        timestamptz NOT NULL,
    -- Real time of the write (the notice's event carries the merchant's time).
    sent_at          timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (subscription_id, kind, announced)
);

-- The merchant's credit for a paid invoice (fee = round_half_up(total × 0.029 + 30), net = max(0, total −
-- fee − tax)), written by the statement that marks the invoice PAID, once per invoice. The ledger books it.
CREATE TABLE invoice_credits (
    invoice_id   text PRIMARY KEY REFERENCES invoices (id),
    merchant_id  text NOT NULL REFERENCES merchants (id),
    environment  text NOT NULL CHECK (environment IN ('live', 'test')),
    currency     text NOT NULL,
    total_cents  bigint NOT NULL CHECK (total_cents >= 0),
    fee_cents    bigint NOT NULL CHECK (fee_cents >= 0),
    tax_cents    bigint NOT NULL CHECK (tax_cents >= 0),
    net_cents    bigint NOT NULL CHECK (net_cents >= 0),
    -- When the invoice was paid, at the merchant's time (TEST: its sandbox clock).
    created_at   timestamptz NOT NULL
);
CREATE INDEX invoice_credits_of_merchant ON invoice_credits (merchant_id, environment, created_at);

-- What the due query range-scans at real time: trials and periods ending (or within the notice lead),
-- UNPAID subscriptions, and OPEN invoices with a retry. A merchant's sandbox clock adds its own TEST
-- subscriptions through subscriptions_listing (merchant_id, environment).
CREATE INDEX subscriptions_trial_due ON subscriptions (trial_end) WHERE status = 'TRIALING';
CREATE INDEX subscriptions_period_due ON subscriptions (current_period_end) WHERE status = 'ACTIVE';
CREATE INDEX subscriptions_unpaid_due ON subscriptions (unpaid_at) WHERE status = 'UNPAID';
CREATE INDEX invoices_retry_due ON invoices (next_attempt_at) WHERE status = 'OPEN';
-- A subscription's OPEN invoices (its earliest retry; what an activation loads) without walking its history.
CREATE INDEX invoices_open_of_subscription ON invoices (subscription_id, next_attempt_at) WHERE status = 'OPEN';
