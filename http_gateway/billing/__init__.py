"""Billing routes: plans, prices, tax rates, customers and their payment methods."""
