"""Developer tools (DESIGN §10.5, §10.6): `payconnect listen` sessions with their signed event stream, and
the TEST reset."""
