"""Pure payment rules: stdlib only, no I/O, no clock reads."""
