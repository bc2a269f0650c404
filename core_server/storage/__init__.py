"""PostgreSQL adapters (psycopg 3 + psycopg-pool) implementing the application's ports."""
