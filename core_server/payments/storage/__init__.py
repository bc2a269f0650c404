"""PostgreSQL adapters of the charge ports: rows, fenced writes, queries."""
