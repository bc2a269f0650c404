"""The merchant dashboard (DESIGN §10.7): server-rendered pages that act with the merchant's signed-in
session and call the same core services as the API; presentation and session handling only."""
