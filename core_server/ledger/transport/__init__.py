"""LedgerService over gRPC."""
