"""gRPC edge of the developer tools: CliSessionService and TestResetService."""
