-- The payments search by customer e-mail (ListCharges with customer_email) reads its page newest first:
-- the index now carries that order, so the page is the first rows of one index range. With 0024's index
-- (merchant, environment, e-mail) the planner, blind to the expression's statistics (it assumes 0.5 % of
-- the rows match), walked the merchant's whole listing index newest first and checked each row's e-mail:
-- 126 ms for the 6 charges of one e-mail among a merchant's 200,000, against 0.2 ms with this one
-- (BENCHMARKS.md, "Speed, round 9"). Same rows indexed, so no more writes than before.
DROP INDEX charges_customer_email;
CREATE INDEX charges_customer_email
    ON charges (merchant_id, environment, lower(customer_email), created_at DESC, seq DESC)
    WHERE customer_email IS NOT NULL;
