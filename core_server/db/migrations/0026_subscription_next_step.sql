-- The billing run's stored next step (issue 27): each save of a subscription writes when its earliest
-- billing step falls due at its merchant's time (billing/domain/billing_steps.py, next_step_at; NULL when
-- it has none), and the run's claim reads the earliest of them by an index range instead of evaluating
-- every rule for every candidate and sorting them (a cost that grew with the backlog).
ALTER TABLE subscriptions ADD COLUMN next_step_at timestamptz;

-- Existing rows, by the rules the due query evaluated until now (the same rules as next_step_at: a
-- trial's end and its notice, a period's end and its notice, the earliest retry of an OPEN invoice, the
-- cancel 30 days after UNPAID, a cancel's refund after 1 minute). A notice falls on the first 00:00 UTC
-- at or after max(end − 3 days, start), only if before the end, once per end (subscription_notices).
-- Durations in seconds, so the session's time zone cannot stretch a day. From here on only saves write it.
UPDATE subscriptions s
   SET next_step_at = due.at
  FROM subscriptions s2
  CROSS JOIN LATERAL (
    SELECT greatest(s2.trial_end - interval '259200 seconds', s2.trial_start) AS trial_from,
           greatest(s2.current_period_end - interval '259200 seconds', s2.current_period_start)
             AS upcoming_from) f
  CROSS JOIN LATERAL (
    SELECT date_trunc('day', f.trial_from, 'UTC')
             + CASE WHEN date_trunc('day', f.trial_from, 'UTC') < f.trial_from
                    THEN interval '24 hours' ELSE interval '0' END AS trial,
           date_trunc('day', f.upcoming_from, 'UTC')
             + CASE WHEN date_trunc('day', f.upcoming_from, 'UTC') < f.upcoming_from
                    THEN interval '24 hours' ELSE interval '0' END AS upcoming) notice
  CROSS JOIN LATERAL (SELECT least(
      CASE WHEN s2.status = 'TRIALING' THEN s2.trial_end END,
      CASE WHEN s2.status = 'TRIALING' AND notice.trial < s2.trial_end
            AND NOT EXISTS (SELECT 1 FROM subscription_notices sn WHERE sn.subscription_id = s2.id
                               AND sn.kind = 'subscription.trial_will_end' AND sn.announced = s2.trial_end)
           THEN notice.trial END,
      CASE WHEN s2.status IN ('ACTIVE', 'PAST_DUE') THEN s2.current_period_end END,
      CASE WHEN s2.status IN ('ACTIVE', 'PAST_DUE') AND NOT s2.cancel_at_period_end
            AND notice.upcoming < s2.current_period_end
            AND NOT EXISTS (SELECT 1 FROM subscription_notices sn WHERE sn.subscription_id = s2.id
                               AND sn.kind = 'invoice.upcoming' AND sn.announced = s2.current_period_end)
           THEN notice.upcoming END,
      CASE WHEN s2.status IN ('ACTIVE', 'PAST_DUE') THEN
        (SELECT min(i.next_attempt_at) FROM invoices i WHERE i.subscription_id = s2.id AND i.status = 'OPEN')
      END,
      CASE WHEN s2.status = 'UNPAID' THEN s2.unpaid_at + interval '2592000 seconds' END,
      CASE WHEN s2.cancel_refund_cents IS NOT NULL THEN s2.canceled_at + interval '60 seconds' END) AS at) due
 WHERE s.id = s2.id AND due.at IS NOT NULL;

-- The claim's range scan, in its order (earliest step first, then creation); rows without a step are
-- left out of the index. A merchant's own run after a sandbox clock advance reads its rows through
-- subscriptions_listing (merchant_id, environment) and filters on the column.
CREATE INDEX subscriptions_next_step ON subscriptions (next_step_at, seq) WHERE next_step_at IS NOT NULL;

-- The due query's range scans of 0012, read by nothing now: each cost an index entry per write of a row in
-- its status (every save that moved a period, every OPEN invoice). A subscription's OPEN invoices are
-- still found by invoices_open_of_subscription.
DROP INDEX subscriptions_trial_due;
DROP INDEX subscriptions_period_due;
DROP INDEX subscriptions_unpaid_due;
DROP INDEX invoices_retry_due;
