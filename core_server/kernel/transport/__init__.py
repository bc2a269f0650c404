"""Protobuf mapping every context shares: environments, callers, idempotency keys, timestamps."""
