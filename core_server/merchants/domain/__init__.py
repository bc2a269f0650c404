"""Pure merchant and API key rules (no I/O)."""
