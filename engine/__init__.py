"""The rules of backgammon: pure functions and immutable values (no I/O, clock or randomness)."""
