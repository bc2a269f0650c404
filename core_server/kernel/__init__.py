"""The shared kernel: what every context uses — errors, ids, money, clocks, idempotency, the outbox."""
