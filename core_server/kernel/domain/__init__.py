"""Pure rules every context shares: the error tree, ids, environments, currencies, event types."""
