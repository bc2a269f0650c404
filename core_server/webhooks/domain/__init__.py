"""Pure webhook rules: endpoint URLs, signatures, the retry schedule, delivery records."""
