-- One job-claim mechanism for every sweep (issue 22; kernel/storage/job_claims.py). A claim is three
-- columns: `claimed_until` (real time; free again after it), `claimed_by` (the claiming core's process
-- name: free again as soon as that core's row in core_heartbeats lapses) and `claim_token` (the batch's
-- random token: only that batch may release or settle what it claimed).
--
-- Timed work whose entity has no row of its own, or several jobs on one row (a charge's expiry and its
-- authorization, a merchant environment's payouts, a retention rule, a subscription's billing step), is
-- claimed in job_claims, keyed by (job, entity). A webhook delivery is its own job: its claim stays on its
-- row (the hot path writes that row anyway), under the same three columns.
CREATE TABLE job_claims (
    job            text NOT NULL,
    entity         text NOT NULL,
    claimed_until  timestamptz NOT NULL,
    claimed_by     text,
    claim_token    text NOT NULL,
    PRIMARY KEY (job, entity)
);
-- Crashed cores' leftovers, purged by the retention sweep once long lapsed.
CREATE INDEX job_claims_lapsed ON job_claims (claimed_until);

-- The two claim mechanisms it replaces.
DROP TABLE payout_claims;
ALTER TABLE subscriptions DROP COLUMN billing_claimed_until;

ALTER TABLE webhook_deliveries RENAME COLUMN locked_until TO claimed_until;
ALTER TABLE webhook_deliveries ADD COLUMN claimed_by text;
