-- The retention purge finds old events by their time; without this index each batch scans the table.
-- (idempotency_keys_created, 0001, serves the idempotency purge; deliveries are found by event_id
-- through their UNIQUE (event_id, endpoint_id) index, attempts by delivery_id.)
CREATE INDEX IF NOT EXISTS events_created ON events (created_at);
