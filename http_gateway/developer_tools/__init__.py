"""Developer tool routes: `payconnect listen` sessions with their Server-Sent-Events stream, and the TEST
reset (DESIGN §10.5, §10.6)."""
