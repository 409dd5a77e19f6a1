"""Imports through a real server with one analysis worker: a match played here, exported as
``.mat`` and imported back, is analysed exactly as the game itself was (the same report); an
import needs an account and is private until shared; a bad file is a typed 400 naming the line;
the owner's imports are listed."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import threading
import urllib.error
import urllib.request
from typing import Any

from harness.accounts import Browser, signed_up
from harness.srv_support import play_out, server_fixture
from protocol.client import MatchClient, create_match, join_match
from protocol.client.lobby import get, get_text

server = server_fixture(FAIRGAMMON_ANALYSERS="1")


def _upload(browser: Browser, name: str, data: bytes) -> tuple[int, dict]:
    headers = {"Content-Type": "text/plain"}
    if browser.origin:
        headers["Origin"] = browser.origin
    if browser.cookies:
        headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in browser.cookies.items())
    request = urllib.request.Request(f"{browser.base}/api/imports?name={name}", data, headers,
                                     method="POST")
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def _upload_over_the_limit(browser: Browser, name: str, data: bytes) -> tuple[int, dict]:
    """A body the server refuses by its Content-Length and closes on before taking it all:
    the answer is read on a thread while the body is sent (a client that only reads after
    sending meets a broken pipe, as urllib does, depending on timing)."""
    port = int(browser.base.rsplit(":", 1)[1])
    head = (f"POST /api/imports?name={name} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            f"Content-Type: text/plain\r\nContent-Length: {len(data)}\r\n"
            f"Cookie: {'; '.join(f'{k}={v}' for k, v in browser.cookies.items())}\r\n"
            f"Origin: {browser.origin}\r\nConnection: close\r\n\r\n").encode()
    answer = bytearray()
    with socket.create_connection(("127.0.0.1", port), timeout=15) as sock:
        def read() -> None:
            try:
                while chunk := sock.recv(65536):
                    answer.extend(chunk)
            except OSError:
                pass

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        with contextlib.suppress(OSError):  # the server closed first: the reader has its answer
            sock.sendall(head + data)
        reader.join(15)
    status_line, _, rest = bytes(answer).partition(b"\r\n")
    return int(status_line.split()[1]), json.loads(rest.partition(b"\r\n\r\n")[2])


async def upload(browser: Browser, name: str, data: bytes) -> tuple[int, dict]:
    return await asyncio.to_thread(_upload, browser, name, data)


async def until_done(fetch: Any) -> dict:
    for _ in range(600):
        body = await fetch()
        if body.get("status") == "done":
            return body
        assert body.get("status") == "pending", body
        await asyncio.sleep(0.1)
    raise AssertionError("never analysed")


async def test_import_is_analysed_like_our_own_game(server) -> None:
    created = await create_match(server.base, name="Ann", mode="match", length=1)
    joined = await join_match(server.base, created["match"], name="Bob")
    match_id = created["match"]
    a = MatchClient(server.ws, match_id, created["token"])
    b = MatchClient(server.ws, match_id, joined["token"])
    async with a, b:
        await play_out(a, b, seed=21)
    own = f"/api/matches/{match_id}/games/1/analysis.json"
    ours = await until_done(lambda: get(server.base, own))
    mat = (await get_text(server.base, f"/api/matches/{match_id}/match.mat")).encode()

    guest = Browser(server.base, origin=server.base)
    status, answer = await upload(guest, "ann-bob.mat", mat)
    assert (status, answer["error"]) == (401, "needs_account")
    ann = await signed_up(server.base, "importer")
    status, answer = await upload(ann, "ann-bob.mat", mat)
    assert status == 201, answer
    assert answer["games"] == 1 and answer["format"] == "mat" and answer["names"] == ["Ann", "Bob"]
    ident = answer["import"]
    assert answer["page"] == f"/imports#{ident}"
    path = f"/api/imports/{ident}/games/1/analysis.json"
    report = await until_done(lambda: _body(ann, path))
    for key in ("players", "turns", "level"):
        assert report[key] == ours[key], key
    # Its move record for the replay board: the game's own, named by the import.
    record = (await ann.get(f"/api/imports/{ident}/games/1/record.json")).body
    played = await get(server.base, f"/api/matches/{match_id}/games/1/record.json")
    for key in ("turns", "names", "length", "score", "result", "games"):
        assert record[key] == played[key], key
    assert record["match"] == ident
    assert (await ann.get(f"/api/imports/{ident}/games/2/record.json")).status == 404
    # Private until shared.
    other = await signed_up(server.base, "lurker")
    assert (await other.get(f"/api/imports/{ident}")).status == 403
    assert (await other.get(f"/api/imports/{ident}/games/1/record.json")).status == 403
    assert (await other.post(f"/api/imports/{ident}/share", {"shared": True})).status == 403
    assert (await ann.post(f"/api/imports/{ident}/share", {"shared": True})).status == 200
    seen = await other.get(f"/api/imports/{ident}")
    assert seen.status == 200 and seen.body["mine"] is False
    assert seen.body["games"][0]["status"] == "done"
    listed = (await ann.get("/api/imports")).body["imports"]
    assert [i["import"] for i in listed] == [ident] and listed[0]["name"] == "ann-bob.mat"
    assert (await other.get("/api/imports")).body["imports"] == []
    # Bad files: typed, with the line.
    status, answer = await upload(ann, "x.mat", b" 1 point match\n\n Game 1\n Ann : 0   Bob : 0\n"
                                                b"  1) 31: 8/5 6/9\n")
    assert (status, answer["error"]) == (400, "bad_match_file"), answer
    assert answer["file_error"]["line"] == 5
    status, answer = await upload(ann, "x.bin", b"\x00\x01")
    assert (status, answer["error"]) == (400, "bad_match_file")
    too_big = b"x" * (1024 * 1024 + 1)
    status, answer = await asyncio.to_thread(_upload_over_the_limit, ann, "big.mat", too_big)
    assert (status, answer["error"]) == (413, "too_large")
    assert (await ann.get("/api/imports/" + "0" * 24)).status == 404
    assert (await ann.get(f"/api/imports/{ident}/games/2/analysis.json")).status == 404


async def _body(browser: Browser, path: str) -> dict:
    return (await browser.get(path)).body
