"""The gateway's connection to the core: the grpc.aio channel, its stubs, and the one way to call them."""
