-- Developer tools (DESIGN §10.6, issue 25): `payconnect listen` sessions, the answers their CLI reported,
-- and what the event stream needs to tail the event log without losing or repeating an event.

-- The inserting transaction of each event. A stream must never pass an event that is not committed yet:
-- `seq` is taken at insert time, so a transaction that inserted seq 10 may commit after the one that
-- inserted seq 11. Ordered by (tx, seq) and read only below the oldest running transaction
-- (pg_snapshot_xmin), the log is final: nothing can appear before a position once it was read.
-- Rows from before this migration take '1' (older than every transaction; no table rewrite), every new
-- row its own transaction id.
ALTER TABLE events ADD COLUMN tx xid8 NOT NULL DEFAULT '1';
ALTER TABLE events ALTER COLUMN tx SET DEFAULT pg_current_xact_id();
CREATE INDEX events_test_stream ON events (merchant_id, tx, seq) WHERE environment = 'test';

-- One `payconnect listen` per row; only TEST has sessions. The signing secret is derived from
-- (merchant, device name), never stored. A stream without Last-Event-ID starts at (start_tx, 0): every
-- event committed after the session was opened.
CREATE TABLE cli_sessions (
    id           text PRIMARY KEY,
    merchant_id  text NOT NULL REFERENCES merchants (id),
    device_name  text NOT NULL,
    start_tx     xid8 NOT NULL,
    -- Real time: a session's life is operational, not sandbox time.
    created_at   timestamptz NOT NULL,
    expires_at   timestamptz NOT NULL,
    -- Set when the CLI closes it or a new session of the same device replaces it.
    closed_at    timestamptz,
    seq          bigserial NOT NULL
);
-- The limit of open sessions per merchant, and the device's open session that a new one replaces.
CREATE INDEX cli_sessions_open ON cli_sessions (merchant_id, device_name) WHERE closed_at IS NULL;

-- What the developer's local endpoint answered for each event, as the CLI reported it; listed like
-- delivery attempts. Gone with its event (TEST reset, retention) or its session.
CREATE TABLE cli_session_responses (
    id           text PRIMARY KEY,
    session_id   text NOT NULL REFERENCES cli_sessions (id) ON DELETE CASCADE,
    event_id     text NOT NULL REFERENCES events (id) ON DELETE CASCADE,
    event_type   text NOT NULL,
    -- NULL: no HTTP answer (connection refused, time-out); `error` says what happened.
    status_code  integer CHECK (status_code BETWEEN 100 AND 599),
    succeeded    boolean NOT NULL,
    error        text,
    latency_ms   integer CHECK (latency_ms >= 0),
    created_at   timestamptz NOT NULL,
    seq          bigserial NOT NULL
);
CREATE INDEX cli_session_responses_listing ON cli_session_responses (session_id, seq DESC);
CREATE INDEX cli_session_responses_event ON cli_session_responses (event_id);
