"""Outbound adapters: the webhook HTTP sender and the host resolver it relies on."""
