"""The ledger context: balance transactions read back as balances and lists, and their reconciliation."""
