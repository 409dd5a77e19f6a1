"""The unit a per-client limit counts (the lobby's limits, chat allowances): an IPv4 address, an
IPv6 /64 network (what one subscriber usually gets), or the raw peer name.

>>> address_key("2001:db8:1:2:3:4:5:6"), address_key("203.0.113.9"), address_key("testclient")
('2001:db8:1:2::/64', '203.0.113.9', 'testclient')
"""

from __future__ import annotations

import ipaddress


def address_key(host: str) -> str:
    """The unit a limit counts: an IPv4 address, an IPv6 /64 network (or the raw peer name)."""
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return host
    if ip.version == 6:
        mapped = ip.ipv4_mapped
        if mapped is not None:
            return str(mapped)
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)
