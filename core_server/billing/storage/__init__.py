"""PostgreSQL adapters of the billing ports."""
