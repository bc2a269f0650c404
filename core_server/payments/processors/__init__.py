"""PaymentProcessor adapters: the sandbox simulator for TEST, the live port for LIVE."""
