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

# The favicon is a data: URL (index.html). 'self' in connect-src covers the page's own ws: and
# wss: in CSP Level 3 browsers; the WebSocket of the requested host is also named for the
# older ones.
_DIRECTIVES = (
    ("default-src", "'self'"),
    ("script-src", "'self'"),
    ("style-src", "'self'"),
    ("img-src", "'self' data:"),
    ("connect-src", "'self'"),
    ("object-src", "'none'"),
    ("base-uri", "'none'"),
    ("frame-ancestors", "'none'"),
    ("form-action", "'self'"),
)

# A Host header that is a plain host name or address with an optional port: anything else (a
# client may send what it likes) names no WebSocket source and cannot add a directive.
_HOST = re.compile(
    r"(?:[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?|\[[0-9A-Fa-f:.]{2,45}\])(?::[0-9]{1,5})?"
)


def policy(host: str | None) -> str:
    """The policy for a page requested with this ``Host`` header."""
    parts = []
    for name, sources in _DIRECTIVES:
        if name == "connect-src" and host and _HOST.fullmatch(host):
            sources = f"{sources} ws://{host} wss://{host}"
        parts.append(f"{name} {sources}")
    return "; ".join(parts)
