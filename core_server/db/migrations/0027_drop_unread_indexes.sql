-- Indexes read by no query since 0026, when the billing run began to claim through
-- subscriptions.next_step_at (and a subscription's owed invoices are read through its id). Each cost an
-- entry per row written: a subscription's save changes next_step_at, an indexed column, so no save is a
-- HOT update and every save wrote an entry into each of its indexes (ten, six after this).
--
-- The two led by an invoice's status also did harm: an activation's read of a subscription's owed
-- invoices (subscription_repository.py, _OWED_INVOICES) is a prepared statement, and on PostgreSQL 15 its
-- generic plan, costed on statistics from a moment when few invoices were OPEN, ANDed a scan of every
-- OPEN invoice into the subscription's own few rows. In a billing run, when thousands are OPEN at once,
-- that read took 0.76 ms instead of 0.03 ms: a quarter of PostgreSQL's time per subscription billed
-- (BENCHMARKS.md, "Speed, round 7").
DROP INDEX invoices_by_status;
DROP INDEX invoices_dunning;

-- The due query's scans of 0011 and 0018 (status and period end; cancels waiting for their refund;
-- PAST_DUE periods). The claim and a merchant's own run after a clock advance read next_step_at;
-- listing by status goes through subscriptions_listing (merchant_id, environment, seq).
DROP INDEX subscriptions_due;
DROP INDEX subscriptions_by_status;
DROP INDEX subscriptions_cancel_refund_due;
DROP INDEX subscriptions_past_due_period;
