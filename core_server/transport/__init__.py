"""The gRPC edge of the core: servicers, pb2 ⇄ domain mapping and error translation."""
