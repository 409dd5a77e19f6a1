"""The Content-Security-Policy sent with every page of the browser client (docs/operations.md,
"Content-Security-Policy").

The client builds every element through the DOM and renders each player's string as text; the
policy is the second line behind that rule: scripts only from this site's own files (no inline
script, no inline event handler, no ``javascript:`` URL, no ``eval``), styles only from its own
stylesheets, connections only to this site (its API and its WebSocket), no plugins, no
``<base>``, no framing by other sites, forms posting only here. One missed spot in the client
therefore cannot run code.

>>> policy("play.example:8443")  # doctest: +NORMALIZE_WHITESPACE
"default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:;
connect-src 'self' ws://play.example:8443 wss://play.example:8443; object-src 'none';
base-uri 'none'; frame-ancestors 'none'; form-action 'self'"
>>> "ws:" in policy("evil; script-src *") or "ws:" in policy(None)
False
"""

from __future__ import annotations

import re

HEADER = "Content-Security-Policy"

# The same for every page but for one source: where the connections may go. The favicon is a
# data: URL (index.html). In CSP Level 3 browsers 'self' in connect-src covers the page's own ws:
# and wss:; Chromium before 71 and Safari before 16 match 'self' to http(s) only, so the
# WebSocket of the requested host is named for them ({websocket}).
_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'{websocket}; object-src 'none'; base-uri 'none'; "
    "frame-ancestors 'none'; form-action 'self'"
)

# A Host header that is a plain host name or address with an optional port: anything else (a
# client may send what it likes) names no WebSocket source and cannot add a directive.
_HOST = re.compile(
    r"(?:[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?|\[[0-9A-Fa-f:.]{2,45}\])(?::[0-9]{1,5})?"
)


def policy(host: str | None) -> str:
    """The policy for a page requested with this ``Host`` header."""
    named = host is not None and _HOST.fullmatch(host) is not None
    return _POLICY.format(websocket=f" ws://{host} wss://{host}" if named else "")
