"""Pure rules of the ledger: availability, balances per currency, reconciliation findings."""
