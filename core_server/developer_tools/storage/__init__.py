"""PostgreSQL adapters of the developer tools: sessions, the event log as a stream, the TEST reset."""
