"""Merchant and API key use cases and the ports they need."""
