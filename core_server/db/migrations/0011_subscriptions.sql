-- Subscriptions, their items, the prorations waiting for an invoice, and the invoices (DESIGN §9, issue 14).
-- A subscription is written like a charge: created in one statement with its children, then only by its
-- actor in fenced saves (fence_token, bumped by each activation). Status values are the domain's own.

CREATE TABLE subscriptions (
    id                    text PRIMARY KEY,
    merchant_id           text NOT NULL REFERENCES merchants (id),
    environment           text NOT NULL CHECK (environment IN ('live', 'test')),
    customer_id           text NOT NULL REFERENCES customers (id),
    -- The base item's price (subscription_items holds every item's own).
    price_id              text NOT NULL REFERENCES prices (id),
    currency              text NOT NULL,
    billing_interval      text NOT NULL CHECK (billing_interval IN ('daily', 'weekly', 'monthly', 'yearly')),
    interval_count        integer NOT NULL CHECK (interval_count >= 1),
    status                text NOT NULL
        CHECK (status IN ('TRIALING', 'ACTIVE', 'PAST_DUE', 'UNPAID', 'PAUSED', 'CANCELED')),
    collection_method     text NOT NULL,
    tax_rate_id           text REFERENCES tax_rates (id),
    trial_start           timestamptz,
    trial_end             timestamptz,
    -- Period n ends at billing_anchor + (n + 1) intervals (billing/domain/periods.py).
    billing_anchor        timestamptz NOT NULL,
    period_index          integer NOT NULL CHECK (period_index >= 0),
    current_period_start  timestamptz NOT NULL,
    current_period_end    timestamptz NOT NULL,
    cancel_at_period_end  boolean NOT NULL DEFAULT false,
    canceled_at           timestamptz,
    cancel_reason         text,
    paused_at             timestamptz,
    latest_invoice        text,
    metadata              jsonb NOT NULL DEFAULT '{}',
    idempotency_key       text,
    created_at            timestamptz NOT NULL,
    updated_at            timestamptz NOT NULL DEFAULT now(),
    -- Row version, bumped by every save.
    version               bigint NOT NULL DEFAULT 1,
    -- Bumped by each actor activation; a save carrying an older fence is refused (stale owner).
    fence_token           bigint NOT NULL DEFAULT 1,
    seq                   bigserial NOT NULL,
    CHECK (current_period_start < current_period_end)
);
CREATE INDEX subscriptions_listing ON subscriptions (merchant_id, environment, seq DESC);
CREATE INDEX subscriptions_by_customer ON subscriptions (customer_id);
CREATE INDEX subscriptions_by_status ON subscriptions (status);
CREATE INDEX subscriptions_by_price ON subscriptions (price_id);
-- The billing run: the subscriptions of a status whose period has ended.
CREATE INDEX subscriptions_due ON subscriptions (status, current_period_end);
-- A create retried after a crash finds the subscription its key already made.
CREATE UNIQUE INDEX subscriptions_idempotency_key ON subscriptions (merchant_id, environment, idempotency_key)
    WHERE idempotency_key IS NOT NULL;

CREATE TABLE subscription_items (
    id                      text PRIMARY KEY,
    subscription_id         text NOT NULL REFERENCES subscriptions (id),
    price_id                text NOT NULL REFERENCES prices (id),
    -- The price's amount when the item took it (prices never change).
    unit_amount_cents       bigint NOT NULL CHECK (unit_amount_cents >= 0),
    quantity                integer NOT NULL CHECK (quantity >= 1),
    status                  text NOT NULL CHECK (status IN ('active', 'removed')),
    proration_behavior      text NOT NULL,
    -- Signed: the proration of the item's last change, a credit negative, 0 if none.
    proration_amount_cents  bigint NOT NULL DEFAULT 0,
    is_base_item            boolean NOT NULL,
    added_at                timestamptz NOT NULL,
    removed_at              timestamptz,
    metadata                jsonb NOT NULL DEFAULT '{}',
    created_at              timestamptz NOT NULL,
    seq                     bigserial NOT NULL
);
CREATE INDEX subscription_items_of_subscription ON subscription_items (subscription_id, seq);
CREATE UNIQUE INDEX subscription_items_one_base ON subscription_items (subscription_id) WHERE is_base_item;

CREATE TABLE invoices (
    id               text PRIMARY KEY CHECK (id ~ '^si_[0-9a-f]{32}$'),
    merchant_id      text NOT NULL REFERENCES merchants (id),
    environment      text NOT NULL CHECK (environment IN ('live', 'test')),
    subscription_id  text NOT NULL REFERENCES subscriptions (id),
    customer_id      text NOT NULL REFERENCES customers (id),
    currency         text NOT NULL,
    -- InvoiceLine.as_dict() of each line (Unix seconds, credits negative); lines never change once written.
    lines            jsonb NOT NULL,
    subtotal_cents   bigint NOT NULL,
    tax_cents        bigint NOT NULL CHECK (tax_cents >= 0),
    total_cents      bigint NOT NULL CHECK (total_cents >= 0),
    tax_rate_id      text REFERENCES tax_rates (id),
    status           text NOT NULL CHECK (status IN ('DRAFT', 'OPEN', 'PAID', 'UNCOLLECTIBLE', 'VOID')),
    billing_reason   text NOT NULL CHECK (billing_reason IN (
        'subscription_create', 'subscription_cycle', 'subscription_update', 'subscription_resume')),
    period_start     timestamptz NOT NULL,
    period_end       timestamptz NOT NULL,
    attempt_count    integer NOT NULL DEFAULT 0 CHECK (attempt_count >= 0),
    next_attempt_at  timestamptz,
    charge_id        text,
    paid_at          timestamptz,
    created_at       timestamptz NOT NULL,
    updated_at       timestamptz NOT NULL DEFAULT now(),
    seq              bigserial NOT NULL
);
-- DESIGN §9: one invoice per (subscription, period). Update invoices (prorations charged mid-period)
-- share their period with its period invoice, so they are outside the index.
CREATE UNIQUE INDEX invoices_one_per_period ON invoices (subscription_id, period_start)
    WHERE billing_reason IN ('subscription_create', 'subscription_cycle', 'subscription_resume');
CREATE INDEX invoices_listing ON invoices (merchant_id, environment, seq DESC);
CREATE INDEX invoices_of_subscription ON invoices (subscription_id, seq);
CREATE INDEX invoices_by_customer ON invoices (customer_id);
CREATE INDEX invoices_by_status ON invoices (status);
-- Dunning: the OPEN invoices whose next attempt is due.
CREATE INDEX invoices_dunning ON invoices (status, next_attempt_at);

CREATE TABLE pending_prorations (
    id               text PRIMARY KEY,
    subscription_id  text NOT NULL REFERENCES subscriptions (id),
    item_id          text NOT NULL REFERENCES subscription_items (id),
    -- The invoice line it becomes (InvoiceLine's fields).
    kind             text NOT NULL CHECK (kind IN ('subscription', 'addon', 'past_due_proration', 'credit')),
    description      text NOT NULL,
    amount_cents     bigint NOT NULL,
    quantity         integer NOT NULL,
    price_id         text NOT NULL,
    period_start     timestamptz NOT NULL,
    period_end       timestamptz NOT NULL,
    -- ProrationInputs.as_dict(): the numbers every cent of the line is recomputed from.
    proration        jsonb,
    -- The invoice that includes it; billed once that invoice is paid.
    invoice_id       text REFERENCES invoices (id),
    billed           boolean NOT NULL DEFAULT false,
    created_at       timestamptz NOT NULL,
    seq              bigserial NOT NULL
);
-- An activation loads the prorations not yet billed.
CREATE INDEX pending_prorations_unbilled ON pending_prorations (subscription_id, seq) WHERE NOT billed;
