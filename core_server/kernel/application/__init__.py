"""Ports and use-case machinery every context shares: clocks, idempotency, owners, timer sweeps."""
