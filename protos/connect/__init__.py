"""Generated gRPC contract; see scripts/gen_protos.py."""
