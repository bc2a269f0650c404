"""gRPC servicers of webhook endpoints and events, and their protobuf mapping."""
