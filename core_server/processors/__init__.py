"""PaymentProcessor implementations: the sandbox simulator and the live port."""
