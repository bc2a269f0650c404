"""PostgreSQL adapters of the webhook ports: endpoints, events and the delivery queue."""
