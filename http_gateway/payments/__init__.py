"""Payments: charge routes, the hosted checkout (JSON routes and HTML pages), the sandbox dispute helpers,
and the charge, refund, dispute and checkout JSON objects."""
