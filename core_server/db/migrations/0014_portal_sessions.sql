-- Customer portal sessions (DESIGN §9 "Portal", issue 16). The URL's token is stored only as its
-- SHA-256 digest: the table never holds a working portal link. A session is valid until expires_at
-- (one hour after it was created, on the merchant's sandbox clock in TEST).
CREATE TABLE portal_sessions (
    id            text PRIMARY KEY,
    merchant_id   text NOT NULL REFERENCES merchants (id),
    environment   text NOT NULL CHECK (environment IN ('test', 'live')),
    customer_id   text NOT NULL REFERENCES customers (id),
    return_url    text NOT NULL,
    token_digest  text NOT NULL,
    created_at    timestamptz NOT NULL,
    expires_at    timestamptz NOT NULL
);
-- Every page view finds its session by the digest of the token in the URL.
CREATE UNIQUE INDEX portal_sessions_token ON portal_sessions (token_digest);
