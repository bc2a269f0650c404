-- Customers and their vaulted payment methods (DESIGN §9, issue 13).
-- A customer is unique per merchant + environment + e-mail, case-insensitive: the unique index, not a
-- read before the insert, decides two concurrent creates with one address (one wins, one is refused).
CREATE TABLE customers (
    seq                     bigserial UNIQUE,
    id                      text PRIMARY KEY,
    merchant_id             text NOT NULL REFERENCES merchants (id),
    environment             text NOT NULL CHECK (environment IN ('test', 'live')),
    email                   text NOT NULL,
    name                    text,
    address                 jsonb,
    default_payment_method  text,
    metadata                jsonb NOT NULL DEFAULT '{}'::jsonb,
    created_at              timestamptz NOT NULL,
    updated_at              timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX customers_email_unique ON customers (merchant_id, environment, lower(email));
-- Lists are newest first per tenant.
CREATE INDEX customers_by_owner ON customers (merchant_id, environment, seq DESC);

-- The vault: only display fields in clear; the gateway token is sealed (AES-GCM) with the id of the key
-- that sealed it beside it, so keys can rotate (a re-seal rewrites both columns).
CREATE TABLE payment_methods (
    seq           bigserial UNIQUE,
    id            text PRIMARY KEY,
    merchant_id   text NOT NULL REFERENCES merchants (id),
    environment   text NOT NULL CHECK (environment IN ('test', 'live')),
    customer_id   text NOT NULL REFERENCES customers (id),
    type          text NOT NULL CHECK (type IN ('card', 'paypal')),
    card          jsonb,
    paypal_email  text,
    token_sealed  bytea NOT NULL,
    key_id        text NOT NULL,
    created_at    timestamptz NOT NULL,
    CHECK ((type = 'card') = (card IS NOT NULL)),
    CHECK ((type = 'paypal') = (paypal_email IS NOT NULL))
);
CREATE INDEX payment_methods_by_customer ON payment_methods (customer_id, seq DESC);
