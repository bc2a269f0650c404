"""Pure billing rules: prices, tax resolution and formulas, customer and payment-method rules (no I/O)."""
