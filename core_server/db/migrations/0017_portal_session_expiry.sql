-- The retention sweep deletes portal sessions a day after they expired (docs/webhooks.md, Retention): this index
-- lets each bounded batch find the oldest expired ones without reading the whole table.
CREATE INDEX portal_sessions_expiry ON portal_sessions (expires_at);
