-- DESIGN §10.9 (issue 23): an endpoint that keeps timing out is paused with back-off, so a set of
-- never-answering receivers cannot hold the delivery slots. `consecutive_timeouts` counts attempts in a
-- row that got no answer within the time-out (a success resets it; other failures leave it);
-- `paused_until` (real time) defers the endpoint's deliveries: no claim takes them before it. The
-- `failing` status of DESIGN §7 is apart from this and unchanged.
ALTER TABLE webhook_endpoints
    ADD COLUMN consecutive_timeouts integer NOT NULL DEFAULT 0,
    ADD COLUMN paused_until timestamptz;
