"""JSON-lines logging with request ids, and the Prometheus instruments served at GET /metrics."""
