-- Webhook endpoints, one delivery per (event, endpoint) written with the event, and every attempt.

CREATE TABLE webhook_endpoints (
    id                    text PRIMARY KEY,
    merchant_id           text NOT NULL REFERENCES merchants (id),
    environment           text NOT NULL CHECK (environment IN ('live', 'test')),
    url                   text NOT NULL,
    events                text[] NOT NULL,
    description           text,
    status                text NOT NULL CHECK (status IN ('enabled', 'disabled', 'failing')),
    -- AES-256-GCM (version byte, nonce, ciphertext+tag) under a key derived from DATA_ENCRYPTION_KEY,
    -- with the endpoint id as associated data. The whsec_ secret is never stored in clear.
    secret_sealed         bytea NOT NULL,
    -- Failed attempts in a row, any event; 5 make the endpoint `failing`, a success restarts it.
    consecutive_failures  integer NOT NULL DEFAULT 0,
    created_at            timestamptz NOT NULL,
    updated_at            timestamptz NOT NULL DEFAULT now(),
    seq                   bigserial NOT NULL
);
CREATE INDEX webhook_endpoints_owner ON webhook_endpoints (merchant_id, environment, seq DESC);

CREATE TABLE webhook_deliveries (
    id               text PRIMARY KEY,
    event_id         text NOT NULL REFERENCES events (id) ON DELETE CASCADE,
    endpoint_id      text NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
    status           text NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
    -- Attempts since the delivery was (re)queued: the retry schedule counts these.
    attempt_count    integer NOT NULL DEFAULT 0,
    next_attempt_at  timestamptz,
    -- A worker's claim: nobody else may take the row before locked_until; its record must carry the token.
    locked_until     timestamptz,
    claim_token      text,
    -- A resend arrived while an attempt was in flight: that attempt's outcome must not end the delivery.
    requeued         boolean NOT NULL DEFAULT false,
    created_at       timestamptz NOT NULL,
    updated_at       timestamptz NOT NULL DEFAULT now(),
    seq              bigserial NOT NULL,
    UNIQUE (event_id, endpoint_id)
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (endpoint_id, next_attempt_at, seq)
    WHERE status = 'pending';
CREATE INDEX webhook_deliveries_listing ON webhook_deliveries (endpoint_id, seq DESC);

CREATE TABLE webhook_attempts (
    id            bigserial PRIMARY KEY,
    delivery_id   text NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
    attempted_at  timestamptz NOT NULL,
    status_code   integer,
    latency_ms    integer NOT NULL,
    error         text,
    succeeded     boolean NOT NULL
);
CREATE INDEX webhook_attempts_delivery ON webhook_attempts (delivery_id, id);

CREATE INDEX events_type_listing ON events (merchant_id, environment, type, seq DESC);
