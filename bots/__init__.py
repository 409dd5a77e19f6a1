"""bots: the computer opponent. ``levels`` are pure policies over :mod:`brain`; ``worker`` is a
client of the server like any player, taking bot seats (``queue``) from the work queue of
:mod:`work` (see docs/bots.md)."""
