"""Webhooks: endpoint and event routes, and the endpoint, delivery and event JSON objects."""
