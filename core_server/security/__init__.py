"""Credentials the core issues (merchant JWTs) and the sealing of secrets it keeps at rest."""
