"""Merchants: sign-up, login and profile routes, API key routes, and their JSON objects."""
