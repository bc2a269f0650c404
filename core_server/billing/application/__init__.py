"""Billing use cases and the ports they need; the public shapes of billing objects."""
