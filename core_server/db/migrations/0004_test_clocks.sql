-- Sandbox clocks (DESIGN §9): a merchant's TEST time is real time plus time_offset. Forward only, so
-- the offset never shrinks; a merchant without a row runs on real time in TEST as in LIVE.
CREATE TABLE test_clocks (
    merchant_id  text PRIMARY KEY REFERENCES merchants (id),
    time_offset  interval NOT NULL CHECK (time_offset >= interval '0'),
    updated_at   timestamptz NOT NULL DEFAULT now()
);
