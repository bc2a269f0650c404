-- The tax share a charge collected for its invoice (DESIGN §10.2, issue 21): refunds and disputes of
-- that charge hand it back on their balance transactions, so the merchant never pays tax it did not
-- receive. Set once, by the charge's create; every other charge (and every charge from before) keeps 0.
ALTER TABLE charges ADD COLUMN tax_amount_cents bigint NOT NULL DEFAULT 0
    CHECK (tax_amount_cents >= 0 AND tax_amount_cents <= amount);
