"""A seat's presence entry (pure): what Redis holds of who holds a seat.

The field ``<seat>`` of ``fg:{m:<id>}:presence`` is ``<status>:<connection id>``: the seat's
status (``online``, ``reconnecting``, ``gone``: :mod:`server.match.presence`) and the connection
that holds it, or held it last. A seat claimed over HTTP and not connected yet is held by
:data:`CLAIMED`. The field ``<seat>:was`` keeps the entry before the seat's last takeover
(:mod:`server.match.crash_credit`). Connection ids contain no colon (a process id, a dot, a
token: :func:`server.match.crash_credit.connection_id`).

The take-seat script writes the ``online`` entry it is given (:meth:`SeatEntry.encode`), so this
module is the one place that spells the format.

>>> entry = SeatEntry.read(b"online:0a1b2c3d.ff00")
>>> entry
SeatEntry(status='online', conn='0a1b2c3d.ff00')
>>> entry.encode()
'online:0a1b2c3d.ff00'
>>> SeatEntry.read(b""), SeatEntry.read(None)
(None, None)
"""

from __future__ import annotations

from typing import NamedTuple

CLAIMED = "claimed"
"""The connection id of a seat claimed over HTTP, not connected yet."""


class SeatEntry(NamedTuple):
    status: str
    """``online``, ``reconnecting`` or ``gone``."""
    conn: str
    """The id of the connection that holds (or held) the seat, or :data:`CLAIMED`."""

    @classmethod
    def read(cls, raw: bytes | None) -> SeatEntry | None:
        """The entry Redis holds (None for a seat never taken: no entry, or an empty one).

        >>> SeatEntry.read(b"reconnecting:claimed").claimed
        True
        """
        if not raw:
            return None
        status, _, conn = raw.decode(errors="replace").partition(":")
        return cls(status, conn)

    def encode(self) -> str:
        return f"{self.status}:{self.conn}"

    @property
    def claimed(self) -> bool:
        """Claimed over HTTP, never connected since."""
        return self.conn == CLAIMED
