-- The merchant dashboard's reads (DESIGN §10.7, issue 24), each answered from an index rather than a
-- scan of every row of the merchant:
-- a charge's events (ListEvents with object_id) on the charge page;
CREATE INDEX events_object ON events (merchant_id, environment, object_id, seq DESC);
-- the home chart's captured volume per day (ChargeService.DailyVolume);
CREATE INDEX charges_captured ON charges (merchant_id, environment, captured_at)
    WHERE captured_at IS NOT NULL;
-- the payments search by customer e-mail (ListCharges with customer_email, case-insensitive).
CREATE INDEX charges_customer_email ON charges (merchant_id, environment, lower(customer_email))
    WHERE customer_email IS NOT NULL;
