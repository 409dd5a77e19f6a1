"""E-mail of notices (docs/friends.md, "E-mail"): off unless the server has an SMTP server
(``FAIRGAMMON_SMTP`` host:port) and the player gave an address and turned it on.

    fg:{u:<name>}:mail    hash: address, on ("1" or "0"), token (the unsubscribe secret)

Only the kinds in MAILED (a correspondence turn, a challenge) are mailed, and only notices that
passed the notices' rate limit. Every mail carries an unsubscribe link that needs no login,
``<base>/unsubscribe?u=<name>&t=<token>`` (and the one-click ``List-Unsubscribe`` headers,
RFC 8058): the token is random per account, compared in constant time, and replaced when the
address changes. Sending is the standard library's SMTP client in a thread; a failure is
logged, never raised.

>>> valid_address("ann@example.org"), valid_address("no at sign"), valid_address("a@b\\nBcc: x")
(True, False, False)
"""

from __future__ import annotations

import asyncio
import hmac
import re
import secrets
import smtplib
from dataclasses import dataclass
from email.message import EmailMessage
from typing import Any
from urllib.parse import urlencode

from redis import asyncio as aioredis

from server.ops import logs
from server.players.accounts_store import tag

log = logs.get("mail")

MAILED = frozenset({"your_turn", "challenge"})
_ADDRESS = re.compile(r"[^@\s<>,;\"]{1,64}@[A-Za-z0-9.-]{1,253}\.[A-Za-z0-9-]{2,63}")


def valid_address(address: str) -> bool:
    return len(address) <= 254 and _ADDRESS.fullmatch(address) is not None


def mail_key(key: str) -> str:
    return f"{tag(key)}:mail"


@dataclass
class Mailer:
    redis: aioredis.Redis
    smtp: str
    sender: str
    base_url: str

    @property
    def enabled(self) -> bool:
        return bool(self.smtp)

    async def settings(self, key: str) -> dict[str, Any]:
        raw = await self.redis.hgetall(mail_key(key))
        row = {k.decode(): v.decode() for k, v in raw.items()}
        return {"address": row.get("address"), "on": row.get("on") == "1",
                "available": self.enabled}  # fmt: skip

    async def configure(self, key: str, address: str | None, on: bool | None) -> dict[str, Any]:
        """Set the address (a new one gets a new unsubscribe token) and/or turn mail on/off."""
        if address is not None:
            await self.redis.hset(
                mail_key(key), mapping={"address": address, "token": secrets.token_urlsafe(24)}
            )
        if on is not None:
            await self.redis.hset(mail_key(key), "on", "1" if on else "0")
        return await self.settings(key)

    async def unsubscribe(self, key: str, token: str) -> bool:
        stored = await self.redis.hget(mail_key(key), "token")
        if not stored or not hmac.compare_digest(stored, token.encode()):
            return False
        await self.redis.hset(mail_key(key), "on", "0")
        return True

    def unsubscribe_link(self, key: str, token: str) -> str:
        return f"{self.base_url}/unsubscribe?{urlencode({'u': key, 't': token})}"

    async def noticed(self, key: str, note: dict[str, Any]) -> None:
        """A listener of new notices: mail it if the kind and the player's settings say so."""
        if not self.enabled or note["kind"] not in MAILED:
            return
        raw = await self.redis.hgetall(mail_key(key))
        row = {k.decode(): v.decode() for k, v in raw.items()}
        if row.get("on") != "1" or not row.get("address") or not row.get("token"):
            return
        link = self.unsubscribe_link(key, row["token"])
        msg = EmailMessage()
        msg["From"], msg["To"] = self.sender, row["address"]
        msg["Subject"] = f"fairgammon: {note['text']}"
        msg["List-Unsubscribe"] = f"<{link}>"
        msg["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
        msg.set_content(
            f"{note['text']}\n\n{note['page']}\n\n"
            f"To receive no more of these e-mails, open {link}\n"
        )
        try:
            await asyncio.to_thread(self._send, msg)
        except Exception as exc:
            log.warning("mail not sent", extra=logs.fields(account=key, error=repr(exc)))

    def _send(self, msg: EmailMessage) -> None:
        host, _, port = self.smtp.rpartition(":")
        with smtplib.SMTP(host or self.smtp, int(port or 25), timeout=10) as client:
            client.send_message(msg)
