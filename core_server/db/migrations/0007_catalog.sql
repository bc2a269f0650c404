-- The billing catalog (DESIGN §9): tax rates, plans and their prices, each owned by one merchant and
-- environment. A price never changes after creation except `active`, so invoices can name it forever.

CREATE TABLE tax_rates (
    id            text PRIMARY KEY,
    merchant_id   text NOT NULL REFERENCES merchants (id),
    environment   text NOT NULL CHECK (environment IN ('live', 'test')),
    -- Exact: at most 4 decimals, 0 <= p < 100 (never a float).
    percentage    numeric(8, 4) NOT NULL CHECK (percentage >= 0 AND percentage < 100),
    display_name  text NOT NULL,
    jurisdiction  text,
    inclusive     boolean NOT NULL,
    -- ISO 3166-1 alpha-2, upper-case; NULL matches no address (used only when named explicitly).
    country       text CHECK (country ~ '^[A-Z]{2}$'),
    -- Upper-case; NULL covers the whole country.
    state         text,
    active        boolean NOT NULL DEFAULT true,
    metadata      jsonb NOT NULL DEFAULT '{}',
    created_at    timestamptz NOT NULL,
    updated_at    timestamptz NOT NULL DEFAULT now(),
    seq           bigserial NOT NULL
);
CREATE INDEX tax_rates_listing ON tax_rates (merchant_id, environment, seq DESC);
-- Resolution by customer address reads the active rates of one country, oldest first.
CREATE INDEX tax_rates_by_country ON tax_rates (merchant_id, environment, country, seq) WHERE active;

CREATE TABLE plans (
    id            text PRIMARY KEY,
    merchant_id   text NOT NULL REFERENCES merchants (id),
    environment   text NOT NULL CHECK (environment IN ('live', 'test')),
    name          text NOT NULL,
    description   text,
    active        boolean NOT NULL DEFAULT true,
    metadata      jsonb NOT NULL DEFAULT '{}',
    created_at    timestamptz NOT NULL,
    updated_at    timestamptz NOT NULL DEFAULT now(),
    seq           bigserial NOT NULL
);
CREATE INDEX plans_listing ON plans (merchant_id, environment, seq DESC);

CREATE TABLE prices (
    id                 text PRIMARY KEY,
    merchant_id        text NOT NULL REFERENCES merchants (id),
    environment        text NOT NULL CHECK (environment IN ('live', 'test')),
    plan_id            text NOT NULL REFERENCES plans (id),
    amount_cents       bigint NOT NULL CHECK (amount_cents >= 50),
    currency           text NOT NULL CHECK (currency IN ('usd', 'eur', 'gbp', 'cad', 'aud', 'jpy', 'chf')),
    billing_interval   text NOT NULL CHECK (billing_interval IN ('daily', 'weekly', 'monthly', 'yearly')),
    -- At most one year in total: daily <= 365, weekly <= 52, monthly <= 12, yearly = 1.
    interval_count     integer NOT NULL CHECK (
        interval_count >= 1 AND interval_count <= CASE billing_interval
            WHEN 'daily' THEN 365 WHEN 'weekly' THEN 52 WHEN 'monthly' THEN 12 ELSE 1 END),
    trial_period_days  integer CHECK (trial_period_days BETWEEN 0 AND 730),
    -- The only column that ever changes.
    active             boolean NOT NULL DEFAULT true,
    metadata           jsonb NOT NULL DEFAULT '{}',
    created_at         timestamptz NOT NULL,
    updated_at         timestamptz NOT NULL DEFAULT now(),
    seq                bigserial NOT NULL
);
CREATE INDEX prices_listing ON prices (merchant_id, environment, seq DESC);
CREATE INDEX prices_of_plan ON prices (plan_id, seq DESC);
