"""The HTTP edge every context shares: errors -> HTTP (the one place), request syntax checks, default
response headers, and the JSON building blocks of the serializers."""
