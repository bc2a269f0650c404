"""PostgreSQL plumbing every context shares: the pool, the migrations and the storage error types."""
