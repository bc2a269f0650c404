"""gRPC servicers of merchants and API keys, and their protobuf mapping."""
