"""An HTTP client for the account tests: keeps the session cookie like a browser and sends an
``Origin`` header when told to (standard library only)."""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from typing import Any


@dataclass
class Reply:
    status: int
    body: dict[str, Any]
    headers: dict[str, str]
    set_cookie: list[str]


@dataclass
class Browser:
    """One player's cookie jar against one server. ``origin`` is sent on every request
    (a page of that site); None sends no Origin (a script)."""

    base: str
    origin: str | None = None
    cookies: dict[str, str] = field(default_factory=dict)

    def _call(self, method: str, path: str, body: dict[str, Any] | None) -> Reply:
        headers = {"Content-Type": "application/json"}
        if self.origin is not None:
            headers["Origin"] = self.origin
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.base + path, data, headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=20) as response:
                status, raw, head = response.status, response.read(), response.headers
        except urllib.error.HTTPError as exc:
            status, raw, head = exc.code, exc.read(), exc.headers
        set_cookie = head.get_all("Set-Cookie") or []
        for line in set_cookie:
            jar: SimpleCookie = SimpleCookie()
            jar.load(line)
            for name, morsel in jar.items():
                if morsel.value == "" or morsel["max-age"] == "0":
                    self.cookies.pop(name, None)
                else:
                    self.cookies[name] = morsel.value
        headers = {k.lower(): v for k, v in head.items()}
        return Reply(status, json.loads(raw) if raw else {}, headers, set_cookie)

    async def call(self, method: str, path: str, body: dict[str, Any] | None = None) -> Reply:
        return await asyncio.to_thread(self._call, method, path, body)

    async def post(self, path: str, body: dict[str, Any] | None = None) -> Reply:
        return await self.call("POST", path, body if body is not None else {})

    async def get(self, path: str) -> Reply:
        return await self.call("GET", path)

    async def signup(self, username: str, password: str) -> Reply:
        return await self.post("/api/account/signup", {"username": username, "password": password})

    async def login(self, username: str, password: str) -> Reply:
        return await self.post("/api/account/login", {"username": username, "password": password})


async def signed_up(base: str, username: str, password: str = "correct horse") -> Browser:
    """A browser on ``base``'s own pages, signed up as ``username``."""
    browser = Browser(base, origin=base)
    reply = await browser.signup(username, password)
    assert reply.status == 201, reply.body
    return browser
