"""The request pipeline: what an operation passes before its handler calls the core (credentials, the API
key cache, rate limits, Service-Version, Idempotency-Key), run in order by admission.py."""
