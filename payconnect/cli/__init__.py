"""The `payconnect` command: listen, trigger, events resend, reset, clock advance (DESIGN §10.6)."""
