-- Payouts (DESIGN §9, issue 16): one per merchant, environment, currency and schedule day, created at
-- 00:00 UTC of the merchant's time (TEST: its sandbox clock) when the available balance reaches the
-- currency's minimum. A payout settles the available rows it lists (their `payout` column) and writes its
-- own `payout` row of −amount in the same statement; at `arrival_date` it is `paid`, or `failed` with a
-- `payout_failure` row of +amount that returns the funds (ledger/storage/payout_repository.py).

-- The account payouts go to; `000111111116` is the sandbox's failing test account. Empty: none given
-- (the sandbox pays out anyway).
ALTER TABLE merchants ADD COLUMN payout_account_number text NOT NULL DEFAULT '';

CREATE TABLE payouts (
    -- po_ + 24 alphanumerics.
    id            text PRIMARY KEY,
    merchant_id   text NOT NULL REFERENCES merchants (id),
    environment   text NOT NULL CHECK (environment IN ('live', 'test')),
    amount        bigint NOT NULL CHECK (amount > 0),
    currency      text NOT NULL,
    status        text NOT NULL CHECK (status IN ('pending', 'paid', 'failed')),
    -- The schedule day (the merchant's UTC date) this payout is for: one per currency and day, so two
    -- cores, a retry or a crash can never pay a day out twice.
    payout_date   date NOT NULL,
    -- Merchant times: created at the day's 00:00 UTC, arriving a day later.
    arrival_date  timestamptz NOT NULL,
    failure_code  text,
    created_at    timestamptz NOT NULL,
    seq           bigserial NOT NULL,
    CHECK ((status = 'failed') = (failure_code IS NOT NULL)),
    UNIQUE (merchant_id, environment, currency, payout_date)
);
-- GET /payouts, newest first, and its filters.
CREATE INDEX payouts_listing ON payouts (merchant_id, environment, created_at DESC, seq DESC);
-- The run's arrivals: pending payouts by arrival (real time; a sandbox clock adds its merchant's).
CREATE INDEX payouts_arriving ON payouts (arrival_date) WHERE status = 'pending';

-- The run's candidates: rows no payout settled yet, by merchant and availability.
CREATE INDEX balance_transactions_unsettled
    ON balance_transactions (merchant_id, environment, currency, available_on) WHERE payout IS NULL;

-- The periodic run's claims: a core that found a merchant's environment due holds it for a while, so two
-- cores take different merchants (the unique key above still makes a payout exactly once without it).
CREATE TABLE payout_claims (
    merchant_id    text NOT NULL REFERENCES merchants (id),
    environment    text NOT NULL CHECK (environment IN ('live', 'test')),
    claimed_until  timestamptz NOT NULL,
    PRIMARY KEY (merchant_id, environment)
);
