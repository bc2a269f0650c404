"""Credentials the core issues: merchant JWTs."""
