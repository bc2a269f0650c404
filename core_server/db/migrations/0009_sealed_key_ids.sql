-- Key ids for sealed secrets (docs/security.md, Rotating the encryption key): each sealed value records the id of
-- the master key that sealed it, so DATA_ENCRYPTION_KEY can change while older keys still open old values.
-- Rows sealed before this migration keep NULL: SQL cannot know the key's id, so the core opens them by
-- trying each configured key (GCM authenticates which), and scripts/rotate_keys.py stamps them.
ALTER TABLE webhook_endpoints ADD COLUMN secret_key_id text;

-- idempotency_keys needs no column: the sealed answers (API key creations) carry their key id in a
-- versioned prefix (core_server/security/secret_box.py seal_blob), as the table is the kernel's generic
-- store of opaque answers and only one caller seals.
