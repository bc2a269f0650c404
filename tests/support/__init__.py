"""Test support: the real services and the real processes the integration and e2e tiers use."""
