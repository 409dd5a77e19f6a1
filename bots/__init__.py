"""bots: the computer opponent. ``levels`` are pure policies over :mod:`brain`; ``worker`` is a
client of the server like any player (see docs/bots.md)."""
