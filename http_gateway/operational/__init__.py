"""Routes about the gateway itself rather than a merchant's data: GET /healthz, GET /metrics and
GET /openapi.json, and the REST contract that the last one serves (openapi/)."""
