"""gRPC servicers of charges and checkout, and their protobuf mapping."""
