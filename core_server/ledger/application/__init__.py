"""The ledger's use cases: the balance, the list of balance transactions, reconciliation."""
