"""PostgreSQL adapters of the merchant and API key ports."""
