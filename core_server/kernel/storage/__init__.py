"""PostgreSQL adapters every context shares: idempotency keys and the transactional outbox."""
