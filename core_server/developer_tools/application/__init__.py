"""Developer tool use cases: CLI sessions, the event stream they read, and the TEST reset."""
