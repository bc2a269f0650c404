"""Merchants: sign-up, login, profiles and API keys."""
