"""The gRPC server's shared edge: the error -> status table, interceptors and the request id."""
