-- The payout account number is sealed at rest like other secrets (DESIGN §10.9): AES-GCM under the
-- keyring's current key (purpose "payout-account", the merchant id as context), its key id beside it so
-- scripts/rotate_keys.py finds what is not under the current key. PostgreSQL holds no key, so the clear
-- values written before this migration are sealed by the core at start (merchants/storage
-- merchant_repository.seal_clear_accounts), which empties `payout_account_number`; from then on that
-- column stays '' and is kept only so a core of the previous release can still start against the schema.
ALTER TABLE merchants ADD COLUMN payout_account_sealed bytea, ADD COLUMN payout_account_key_id text;

-- Dashboard tokens carry the version they were issued under (claim `ver`); a password change bumps it,
-- and the gateway refuses a token of an older version, so every session of a leaked password ends.
ALTER TABLE merchants ADD COLUMN token_version bigint NOT NULL DEFAULT 0;
