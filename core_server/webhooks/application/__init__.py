"""Webhook use cases: endpoint management, the event log and the delivery dispatcher."""
