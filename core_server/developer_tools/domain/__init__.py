"""Pure rules of the developer tools: CLI sessions, their secrets and reported answers, the reset's result."""
