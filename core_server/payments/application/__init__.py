"""Payment use cases: the charge actor, its commands, checkout, timers, the public charge shape."""
