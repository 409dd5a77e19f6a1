"""E-mail of notices against a real local SMTP server (aiosmtpd, a test dependency: the
server's own SMTP client is the standard library's) through a real server process
(docs/friends.md, "E-mail"): off by default, mailed for a challenge once the player turned it
on, and the unsubscribe link in the mail turns it off without any login."""

from __future__ import annotations

import asyncio
import email
import re
import socket
import urllib.request
from email.message import Message

import pytest
from aiosmtpd.controller import Controller

from harness.accounts import signed_up
from harness.serverproc import ServerProcess


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


SMTP_PORT = free_port()


@pytest.fixture
def server(redis_url):
    """A server process mailing through the test's SMTP server, on an emptied Redis."""
    proc = ServerProcess(redis_url, FAIRGAMMON_SMTP=f"127.0.0.1:{SMTP_PORT}")
    proc.start()
    yield proc
    proc.stop()


class Inbox:
    def __init__(self) -> None:
        self.mails: list[Message] = []

    async def handle_DATA(self, server, session, envelope):
        self.mails.append(email.message_from_bytes(envelope.content))
        return "250 OK"


async def arrived(inbox: Inbox, count: int) -> list[Message]:
    for _ in range(100):
        if len(inbox.mails) >= count:
            return inbox.mails
        await asyncio.sleep(0.05)
    return inbox.mails


async def test_a_challenge_is_mailed_and_the_link_unsubscribes(server):
    inbox = Inbox()
    smtp = Controller(inbox, hostname="127.0.0.1", port=SMTP_PORT)
    smtp.start()
    try:
        ida, jon = [await signed_up(server.base, n) for n in ("ida", "jon")]
        assert (await jon.get("/api/my/email")).body == {
            "address": None,
            "on": False,
            "available": True,
        }
        bad = await jon.post("/api/my/email", {"address": "not an address"})
        assert (bad.status, bad.body["error"]) == (400, "bad_field")

        async def challenge() -> None:
            made = await ida.post("/api/matches", {"mode": "single_game", "days": 3})
            offer = {"name": "jon", "match": made.body["match"], "invite": made.body["invite"]}
            assert (await ida.post("/api/challenges", offer)).status == 201

        await challenge()  # off by default: nothing is mailed
        await asyncio.sleep(0.5)
        assert inbox.mails == []

        on = await jon.post("/api/my/email", {"address": "jon@example.org", "on": True})
        assert on.body == {"address": "jon@example.org", "on": True, "available": True}
        await challenge()
        (mail,) = await arrived(inbox, 1)
        assert mail["To"] == "jon@example.org"
        assert mail["Subject"] == "fairgammon: ida challenges you (3 days a move)"
        body = mail.get_payload(decode=True).decode()
        link = re.search(r"open (\S+/unsubscribe\?\S+)", body)
        assert link is not None and "".join(mail["List-Unsubscribe"].split()) == f"<{link[1]}>"
        # A forged token does nothing; the mail's own link turns e-mail off, no login needed.
        forged = re.sub(r"t=[^&]+", "t=forged", link[1])
        status = await asyncio.to_thread(lambda: _status(forged))
        assert status == 404
        with urllib.request.urlopen(link[1], timeout=10) as reply:
            assert reply.status == 200 and b"no more e-mail" in reply.read()
        assert (await jon.get("/api/my/email")).body["on"] is False
        await challenge()
        await asyncio.sleep(0.5)
        assert len(inbox.mails) == 1
    finally:
        smtp.stop()


def _status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=10) as reply:
            return reply.status
    except urllib.error.HTTPError as exc:
        return exc.code
