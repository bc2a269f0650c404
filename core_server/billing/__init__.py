"""Billing (merchant of record): plans, prices, tax rates, customers and their payment methods.

Subscriptions, invoices and dunning arrive here next (issues 14 and 15)."""
