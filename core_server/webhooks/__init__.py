"""Webhooks: endpoints, the event log, deliveries and their retries."""
