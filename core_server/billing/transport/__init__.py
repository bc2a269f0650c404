"""gRPC servicers of the catalog and customers, and their protobuf mapping."""
