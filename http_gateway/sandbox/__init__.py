"""The sandbox's own routes, about no one context: the test clock."""
