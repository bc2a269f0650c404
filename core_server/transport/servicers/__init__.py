"""One servicer per gRPC service of connect.v1."""
