"""Use cases: actors, jobs and services that apply domain rules through the ports."""
