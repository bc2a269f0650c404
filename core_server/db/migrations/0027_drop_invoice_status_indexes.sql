-- Two indexes led by an invoice's status, read by no query since 0026 (the billing run claims through
-- subscriptions.next_step_at; a subscription's owed invoices are read through its id).
--
-- They did harm besides their upkeep (an entry per invoice written, and no HOT update of a status change):
-- an activation's read of a subscription's owed invoices (subscription_repository.py, _OWED_INVOICES) is a
-- prepared statement, and its generic plan, costed on statistics from a moment when few invoices were
-- OPEN, ANDed a scan of every OPEN invoice into the subscription's own few rows. In a billing run, when
-- thousands are OPEN at once, that read took 0.76 ms instead of 0.03 ms: a quarter of PostgreSQL's time
-- per subscription billed (BENCHMARKS.md, "Speed, round 7").
DROP INDEX invoices_by_status;
DROP INDEX invoices_dunning;
