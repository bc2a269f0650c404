"""Payments: charges, refunds, disputes, hosted checkout and the sandbox processor."""
