-- Merchants, API keys, charges with their refunds and disputes, the event outbox and idempotency records.

CREATE TABLE merchants (
    id               text PRIMARY KEY,
    email            text NOT NULL,
    password_hash    text NOT NULL,
    business_name    text NOT NULL DEFAULT '',
    logo_url         text NOT NULL DEFAULT '',
    brand_color      text NOT NULL DEFAULT '',
    support_email    text NOT NULL DEFAULT '',
    payout_schedule  text NOT NULL DEFAULT 'daily',
    created_at       timestamptz NOT NULL
);
CREATE UNIQUE INDEX merchants_email_key ON merchants (lower(email));

CREATE TABLE api_keys (
    id                text PRIMARY KEY,
    merchant_id       text NOT NULL REFERENCES merchants (id),
    name              text NOT NULL,
    environment       text NOT NULL CHECK (environment IN ('live', 'test')),
    publishable_key   text NOT NULL UNIQUE,
    -- Only a SHA-256 digest of the secret key is kept; the key itself is shown once at creation.
    secret_key_hash   text NOT NULL UNIQUE,
    secret_key_last4  text NOT NULL,
    created_at        timestamptz NOT NULL,
    revoked_at        timestamptz,
    seq               bigserial NOT NULL
);
CREATE INDEX api_keys_merchant ON api_keys (merchant_id, seq DESC);

CREATE TABLE charges (
    id                 text PRIMARY KEY,
    merchant_id        text NOT NULL REFERENCES merchants (id),
    environment        text NOT NULL CHECK (environment IN ('live', 'test')),
    amount             bigint NOT NULL CHECK (amount BETWEEN 50 AND 99999999),
    currency           text NOT NULL,
    status             text NOT NULL,
    description        text,
    metadata           jsonb NOT NULL DEFAULT '{}',
    return_url         text NOT NULL,
    cancel_url         text,
    customer_email     text,
    idempotency_key    text,
    payment_method     text,
    -- Brand, last4, expiry, funding, country and fingerprint, or the PayPal e-mail: never a card number.
    payment_details    jsonb,
    transaction_id     text,
    failure_code       text,
    authorized_at      timestamptz,
    amount_captured    bigint,
    fee_amount_cents   bigint NOT NULL DEFAULT 0,
    net_amount_cents   bigint,
    captured_at        timestamptz,
    amount_refunded    bigint NOT NULL DEFAULT 0,
    refunded_at        timestamptz,
    voided_at          timestamptz,
    disputed_at        timestamptz,
    expires_at         timestamptz NOT NULL,
    created_at         timestamptz NOT NULL,
    updated_at         timestamptz NOT NULL DEFAULT now(),
    -- Row version, bumped by every write.
    version            bigint NOT NULL DEFAULT 1,
    -- Bumped by each actor activation; a write carrying an older fence is refused (stale owner).
    fence_token        bigint NOT NULL DEFAULT 1,
    seq                bigserial NOT NULL,
    CHECK (amount_refunded >= 0 AND amount_refunded <= coalesce(amount_captured, 0)),
    CHECK (amount_captured IS NULL OR amount_captured <= amount)
);
CREATE INDEX charges_listing ON charges (merchant_id, environment, created_at DESC, seq DESC);
CREATE INDEX charges_pending_expiry ON charges (expires_at) WHERE status = 'pending';
CREATE INDEX charges_authorized_hold ON charges (authorized_at) WHERE status = 'authorized';

CREATE TABLE refunds (
    id          text PRIMARY KEY,
    charge_id   text NOT NULL REFERENCES charges (id),
    amount      bigint NOT NULL CHECK (amount > 0),
    currency    text NOT NULL,
    status      text NOT NULL,
    reason      text,
    created_at  timestamptz NOT NULL,
    seq         bigserial NOT NULL
);
CREATE INDEX refunds_charge ON refunds (charge_id, seq);

CREATE TABLE disputes (
    id            text PRIMARY KEY,
    charge_id     text NOT NULL UNIQUE REFERENCES charges (id),
    amount        bigint NOT NULL,
    currency      text NOT NULL,
    status        text NOT NULL,
    fee           bigint NOT NULL,
    prior_status  text NOT NULL,
    created_at    timestamptz NOT NULL
);

-- The transactional outbox: written in the same transaction as the state change that causes it.
CREATE TABLE events (
    id           text PRIMARY KEY,
    merchant_id  text NOT NULL REFERENCES merchants (id),
    environment  text NOT NULL,
    type         text NOT NULL,
    object_id    text NOT NULL,
    payload      jsonb NOT NULL,
    created_at   timestamptz NOT NULL,
    seq          bigserial NOT NULL
);
CREATE INDEX events_listing ON events (merchant_id, environment, seq DESC);

CREATE TABLE idempotency_keys (
    scope         text NOT NULL,
    key           text NOT NULL,
    fingerprint   text NOT NULL,
    state         text NOT NULL CHECK (state IN ('in_progress', 'completed')),
    response      bytea,
    error         jsonb,
    created_at    timestamptz NOT NULL,
    -- An in-progress claim older than this was abandoned by a crashed process and may be taken over.
    locked_until  timestamptz NOT NULL,
    PRIMARY KEY (scope, key)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);
