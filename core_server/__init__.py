"""The gRPC core: owns every charge through per-entity actors, PostgreSQL and Redis."""
