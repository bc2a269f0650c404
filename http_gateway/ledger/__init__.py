"""Routes of the balance and its balance transactions (DESIGN §9)."""
