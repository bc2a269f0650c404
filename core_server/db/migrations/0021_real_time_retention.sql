-- Retention purges by real time, whatever the TEST time of a row (DESIGN §10.5, issue 23). An event's
-- `created_at` and a portal session's `expires_at` are on the merchant's clock, which a TEST advance may
-- move years ahead: a row stamped there would never look old. `inserted_at` is the real moment the row
-- was written (the database's own clock), and the purges also take a row once it is that old.
-- now() is stable, so adding the column rewrites nothing; rows already there count from today.
ALTER TABLE events ADD COLUMN inserted_at timestamptz NOT NULL DEFAULT now();
CREATE INDEX events_inserted ON events (inserted_at);

ALTER TABLE portal_sessions ADD COLUMN inserted_at timestamptz NOT NULL DEFAULT now();
CREATE INDEX portal_sessions_inserted ON portal_sessions (inserted_at);
