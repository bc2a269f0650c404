-- Idempotency claims that follow their process's liveness (docs/running.md, Failure behaviour).
-- `owner` is a random token per claim: only the claim's own run may release it, complete it or write the
-- state change it guards, so a claim taken over is never finished by the process that lost it.
-- `process` names the claiming core; a claim whose core stopped beating in core_heartbeats is abandoned
-- and may be taken over at once, without waiting for `locked_until`. Both are NULL for a first claim
-- (taken completed in its create's statement) and for rows written before this migration.
ALTER TABLE idempotency_keys ADD COLUMN owner text, ADD COLUMN process text;

-- One row per running core, renewed every CORE_HEARTBEAT_SECONDS; a row older than
-- CORE_HEARTBEAT_LAPSE_SECONDS belongs to a dead (or wedged) process.
CREATE TABLE core_heartbeats (
    process    text PRIMARY KEY,
    last_seen  timestamptz NOT NULL
);
