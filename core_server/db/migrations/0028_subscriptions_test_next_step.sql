-- The billing run's claim of what only a sandbox clock made due (subscription_repository.py, _CLAIM_DUE):
-- per merchant with a clock, its TEST subscriptions in next-step order, read up to that merchant's time.
-- Without it the claim walked subscriptions_next_step over every TEST subscription of the platform, with a
-- test_clocks probe each, whenever the batch was not filled (the usual case: nothing is due): 134-222 ms
-- a claim at 10,000 merchants and 100,000 subscriptions, against 6-7 ms with it (BENCHMARKS.md, "Speed,
-- round 9").
CREATE INDEX subscriptions_test_next_step ON subscriptions (merchant_id, next_step_at, seq)
    WHERE environment = 'test' AND next_step_at IS NOT NULL;
