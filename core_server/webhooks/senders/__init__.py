"""Outbound HTTP for webhook deliveries, with the address checks that guard it."""
