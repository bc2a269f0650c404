-- Currency conversion at payout time (DESIGN §9): a merchant with a `settlement_currency` has its
-- available balance in other currencies converted into it at the mid-market rate less 1 %, as a pair of
-- `conversion` balance transactions (one out of each source currency, one into the settlement currency)
-- that carry both rates. Empty: each currency pays out on its own and nothing is converted.
ALTER TABLE merchants ADD COLUMN settlement_currency text NOT NULL DEFAULT '';

-- The rates a conversion applies and shows: exactly the ones written (a rate is never recomputed).
ALTER TABLE balance_transactions
    ADD COLUMN mid_market_rate numeric,
    ADD COLUMN exchange_rate numeric,
    ADD CHECK ((type = 'conversion') = (exchange_rate IS NOT NULL AND mid_market_rate IS NOT NULL));

-- Operator-managed mid-market rates: units of `currency` per one US dollar, per environment. TEST ships
-- a sandbox table; LIVE needs a rate provider to fill it and has none by default, so LIVE balances are
-- never converted (each currency pays out on its own) until an operator adds rates.
CREATE TABLE fx_rates (
    environment  text NOT NULL CHECK (environment IN ('live', 'test')),
    currency     text NOT NULL,
    per_usd      numeric NOT NULL CHECK (per_usd > 0),
    updated_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (environment, currency)
);
INSERT INTO fx_rates (environment, currency, per_usd) VALUES
    ('test', 'usd', 1),
    ('test', 'eur', 0.92),
    ('test', 'gbp', 0.79),
    ('test', 'cad', 1.36),
    ('test', 'aud', 1.52),
    ('test', 'jpy', 150),
    ('test', 'chf', 0.88);
