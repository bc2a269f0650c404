"""The ledger's reads of balance_transactions and the movements they must match."""
