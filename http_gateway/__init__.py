"""REST gateway: translates the Merchant Payment Connect HTTP API into gRPC calls to the core."""
