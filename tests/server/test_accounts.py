"""Accounts through a real server process and Redis: sign-up, login, sessions, deletion, the
login throttle, equal answers for unknown names, the Origin check, and rated-match rules."""

from __future__ import annotations

import asyncio
import time

import pytest
import redis.asyncio as aioredis

from harness.accounts import Browser, signed_up
from harness.srv_support import server_fixture
from protocol.client import MatchClient
from server.players.accounts_store import AccountsStore

PASSWORD = "correct horse"
FAILURES = 5


# One server process for this module (each test starts from an empty Redis).
accounts_server = server_fixture(
    FAIRGAMMON_LOGIN_FAILURES=str(FAILURES),
    FAIRGAMMON_LEADERBOARD_EXPERIENCE="5",
    FAIRGAMMON_LOG_LEVEL="debug",  # so that a password logged anywhere would show
)


@pytest.fixture
async def server(accounts_server, redis_url):
    return accounts_server


async def test_signup_sets_a_safe_session_cookie_and_whoami_knows_the_player(server):
    browser = Browser(server.base, origin=server.base)
    reply = await browser.signup("Alice_1", PASSWORD)
    assert reply.status == 201
    assert reply.body == {"username": "Alice_1", "rating": 1500.0, "experience": 0, "matches": 0,
                          "bot": False}
    (cookie,) = reply.set_cookie
    flags = {part.strip().lower() for part in cookie.split(";")}
    assert "httponly" in flags and "samesite=lax" in flags and "path=/" in flags
    assert "secure" not in flags  # plain http here; https public URLs get Secure
    assert cookie.startswith("fg_session=Alice_1.")
    who = await browser.get("/api/account")
    assert who.status == 200 and who.body["username"] == "Alice_1" and who.body["signed_in"]
    assert who.headers["cache-control"] == "no-store"
    # Unique without regard to case; bad names and passwords are refused with typed errors.
    again = await Browser(server.base, origin=server.base).signup("alice_1", PASSWORD)
    assert (again.status, again.body["error"]) == (409, "name_taken")
    for name, password, code in [
        ("ab", PASSWORD, "bad_username"),
        ("a" * 21, PASSWORD, "bad_username"),
        ("bad name", PASSWORD, "bad_username"),
        ("bob", "short", "bad_password"),
        ("bob", "x" * 129, "bad_password"),
    ]:
        bad = await Browser(server.base, origin=server.base).signup(name, password)
        assert (bad.status, bad.body["error"]) == (400, code), name


async def test_login_logout_and_a_stale_cookie(server):
    first = await signed_up(server.base, "carol")
    other = Browser(server.base, origin=server.base)
    ok = await other.login("CAROL", PASSWORD)  # names are matched without regard to case
    assert ok.status == 200 and ok.body["username"] == "carol"
    out = await other.post("/api/account/logout")
    assert out.status == 200 and "fg_session" not in other.cookies
    assert not (await other.get("/api/account")).body["signed_in"]
    assert (await first.get("/api/account")).body["signed_in"]  # the other session lives on
    forged = Browser(server.base, cookies={"fg_session": "carol." + "A" * 43})
    assert not (await forged.get("/api/account")).body["signed_in"]


async def test_a_username_is_matched_whole_no_trailing_newline_no_control_character(server):
    for name in ("name\n", "name\r\n", "na\tme", "\nname", "name\x00", "nam\u200be",
                 "name\x7f", "ab\ud800c"):  # fmt: skip
        reply = await Browser(server.base).signup(name, PASSWORD)
        assert (reply.status, reply.body["error"]) == (400, "bad_username"), repr(name)
        assert not reply.set_cookie
    assert (await Browser(server.base).signup("name_nl", PASSWORD)).status == 201
    # A login with the newline is an unknown name, not the account.
    for name in ("name_nl\n", "name_nl\r"):
        reply = await Browser(server.base).login(name, PASSWORD)
        assert (reply.status, reply.body["error"]) == (401, "bad_login"), repr(name)
    assert (await Browser(server.base).login("name_nl", PASSWORD)).status == 200
    # An account a server without the rule let in ("legacy\n") has no profile either.
    redis = aioredis.from_url(server.redis_url)
    try:
        assert await AccountsStore(redis).create("legacy\n", "0" * 16, "x", 0, 1500.0)
    finally:
        await redis.aclose()
    assert (await Browser(server.base).get("/api/players/legacy%0A")).status == 404


async def test_a_password_with_a_lone_surrogate_is_bad_password(server):
    lone = "abcdefgh\ud800"
    reply = await Browser(server.base).signup("surrogate_1", lone)
    assert (reply.status, reply.body["error"]) == (400, "bad_password") and not reply.set_cookie
    assert (await Browser(server.base).signup("surrogate_1", PASSWORD)).status == 201
    for name in ("surrogate_1", "nobody_here"):  # the same answer, account or not
        reply = await Browser(server.base).login(name, lone)
        assert (reply.status, reply.body["error"]) == (400, "bad_password"), name
    assert (await Browser(server.base).login("surrogate_1", PASSWORD)).status == 200


async def test_unknown_name_and_wrong_password_answer_the_same_in_the_same_time(server):
    await signed_up(server.base, "dave")
    browser = Browser(server.base, origin=server.base)
    timings: dict[str, list[float]] = {"unknown": [], "wrong": []}
    answers = set()
    for _ in range(FAILURES - 1):  # one short of the account's lock-out
        for kind, name in (("unknown", "nobody_here"), ("wrong", "dave")):
            started = time.perf_counter()
            reply = await browser.login(name, "not the password")
            timings[kind].append(time.perf_counter() - started)
            answers.add((reply.status, tuple(sorted(reply.body.items()))))
    assert answers == {(401, (("error", "bad_login"), ("message", "wrong username or password")))}
    # The fastest of four interleaved tries: load on a shared machine only ever adds time, so the
    # minimum is the cost of the work itself (a median of three failed under a busy neighbour).
    unknown, wrong = min(timings["unknown"]), min(timings["wrong"])
    # Both ran scrypt (tens of ms); a skipped hash would answer in a few ms.
    assert min(unknown, wrong) > 0.02, timings
    assert abs(unknown - wrong) < 0.5 * max(unknown, wrong), timings
    print(f"\nlogin: unknown name {unknown * 1000:.0f} ms, wrong password {wrong * 1000:.0f} ms")


async def test_brute_force_login_is_stopped_per_account(server):
    await signed_up(server.base, "erin")
    attacker = Browser(server.base)
    for _ in range(FAILURES):
        assert (await attacker.login("erin", "guess guess")).status == 401
    # Even the right password is now refused, until the window passes.
    blocked = await attacker.login("erin", PASSWORD)
    assert (blocked.status, blocked.body["error"]) == (429, "too_many_attempts")
    assert 1 <= int(blocked.headers["retry-after"]) <= 900
    # An unknown name is throttled the same way (the answers tell nothing about existence).
    for _ in range(FAILURES):
        await attacker.login("ghost", "guess guess")
    assert (await attacker.login("ghost", "guess guess")).status == 429
    # Other accounts from the same address still log in (the address allows more failures).
    await signed_up(server.base, "frank")
    assert (await Browser(server.base).login("frank", PASSWORD)).status == 200


async def test_a_deleted_account_cannot_log_in_and_its_sessions_are_gone(server):
    browser = await signed_up(server.base, "gina")
    second = Browser(server.base, origin=server.base)
    assert (await second.login("gina", PASSWORD)).status == 200
    old_cookie = dict(browser.cookies)
    gone = await browser.call("DELETE", "/api/account")
    assert gone.status == 200 and gone.body == {"deleted": "gina"}
    assert not (await second.get("/api/account")).body["signed_in"]
    stale = Browser(server.base, cookies=old_cookie)
    assert not (await stale.get("/api/account")).body["signed_in"]
    relogin = await Browser(server.base).login("gina", PASSWORD)
    assert (relogin.status, relogin.body["error"]) == (401, "bad_login")
    redis = aioredis.from_url(server.redis_url)
    try:
        assert await redis.keys("fg:{u:gina}:*") == [b"fg:{u:gina}:fails"]  # the failed login
    finally:
        await redis.aclose()
    assert (await Browser(server.base).get("/api/players/gina")).status == 404


async def test_another_sites_page_cannot_create_or_join_with_the_cookie(server):
    owner = await signed_up(server.base, "hank")
    evil = Browser(server.base, origin="https://evil.example", cookies=dict(owner.cookies))
    refused = await evil.post("/api/matches", {"mode": "match", "length": 3})
    assert (refused.status, refused.body["error"]) == (403, "bad_origin")
    no_origin = Browser(server.base, cookies=dict(owner.cookies))  # cookie, Origin left out
    assert (await no_origin.post("/api/matches", {"mode": "match", "length": 3})).status == 403
    assert (await owner.get("/api/matches?status=open")).body["matches"] == []  # nothing made
    created = await owner.post("/api/matches", {"mode": "match", "length": 3})
    assert created.status == 201
    match = created.body["match"]
    joiner = await signed_up(server.base, "ivy")
    evil_join = Browser(server.base, origin="null", cookies=dict(joiner.cookies))
    assert (await evil_join.post(f"/api/matches/{match}/join", {})).status == 403
    assert (await evil.call("DELETE", "/api/account")).status == 403
    assert (await owner.get("/api/account")).body["signed_in"]  # the account survived
    assert (await owner.get(f"/api/matches/{match}")).body["phase"] == "waiting"
    # A script with neither cookie nor Origin is served as before.
    script = await Browser(server.base).post("/api/matches", {"mode": "single_game"})
    assert script.status == 201


async def test_seats_are_linked_and_rated_matches_need_two_accounts(server):
    alice = await signed_up(server.base, "alice")
    bob = await signed_up(server.base, "bob")
    guest = Browser(server.base, origin=server.base)
    created = await alice.post("/api/matches", {"mode": "match", "length": 3, "rated": True,
                                                "name": "typed"})  # fmt: skip
    assert created.status == 201 and created.body["rated"] is True
    match = created.body["match"]
    no = await guest.post(f"/api/matches/{match}/join", {"name": "g"})
    assert (no.status, no.body["error"]) == (401, "needs_account")
    self_join = await alice.post(f"/api/matches/{match}/join", {})
    assert (self_join.status, self_join.body["error"]) == (409, "same_account")
    assert (await bob.post(f"/api/matches/{match}/join", {})).status == 200
    listed = (await guest.get("/api/matches?status=live")).body["matches"]
    assert [(x["id"], x["rated"], x["bot"]) for x in listed] == [(match, True, None)]
    info = (await guest.get(f"/api/matches/{match}")).body
    assert info["names"] == ["alice", "bob"]  # the account's name, not the typed one
    assert info["rated"] is True and info["accounts"] == [True, True]
    for body, code in [
        ({"mode": "money", "rated": True}, "bad_field"),
        ({"mode": "single_game", "rated": True}, "bad_field"),
        ({"mode": "match", "length": 3, "rated": "yes"}, "bad_field"),
    ]:
        assert (await alice.post("/api/matches", body)).body["error"] == code
    anonymous = await guest.post("/api/matches", {"mode": "match", "length": 3, "rated": True})
    assert (anonymous.status, anonymous.body["error"]) == (401, "needs_account")
    unrated = (await guest.post("/api/matches", {"mode": "match", "length": 3})).body["match"]
    assert (await guest.get(f"/api/matches/{unrated}")).body["accounts"] == [False, False]


async def test_passwords_are_never_logged_stored_in_clear_or_returned(server):
    secret = "Zebra-Secret-4471"
    wrong = "Wrong-Secret-9902"
    browser = Browser(server.base, origin=server.base)
    replies = [await browser.signup("jill", secret)]
    replies.append(await browser.login("jill", secret))
    replies.append(await Browser(server.base).login("jill", wrong))
    replies.append(await Browser(server.base).login("nobody_x", wrong))
    replies.append(await browser.get("/api/account"))
    replies.append(await browser.get("/api/players/jill"))
    for reply in replies:
        text = repr(reply.body) + repr(reply.headers)
        assert secret not in text and wrong not in text
    assert {r.status for r in replies} == {200, 201, 401}
    redis = aioredis.from_url(server.redis_url)
    try:
        stored = b""
        for key in await redis.keys("*"):
            kind = await redis.type(key)
            if kind == b"hash":
                stored += b"".join(k + v for k, v in (await redis.hgetall(key)).items())
            elif kind == b"string":
                stored += await redis.get(key)
        record = await redis.hget("fg:{u:jill}:acct", "pw")
    finally:
        await redis.aclose()
    assert record.startswith(b"scrypt$32768$8$1$")
    assert secret.encode() not in stored and wrong.encode() not in stored
    assert server.log_path is not None
    log = server.log_path.read_text()
    assert '"level":"debug"' in log or '"level":"info"' in log  # the log is written at all
    assert secret not in log and wrong not in log


TOKENS: dict[str, tuple[str, str]] = {}


async def leave(base: str, match: str, token: str) -> None:
    ws = base.replace("http", "ws") + "/ws"
    async with MatchClient(ws, match, token) as c:
        await c.leave()
        await c.wait_for(lambda t: t.over is not None)


async def finished(owner: Browser, joiner: Browser, leaver: int, **options) -> str:
    """A match made by ``owner``, joined by ``joiner``, lost by seat ``leaver`` leaving (the
    seat tokens are kept in TOKENS)."""
    created = await owner.post("/api/matches", options)
    assert created.status == 201, created.body
    match = created.body["match"]
    join = {"invite": created.body["invite"].split("#join=")[1]} if options.get("private") else {}
    joined = await joiner.post(f"/api/matches/{match}/join", join)
    assert joined.status == 200, joined.body
    TOKENS[match] = (created.body["token"], joined.body["token"])
    await leave(owner.base, match, TOKENS[match][leaver])
    return match


async def test_profile_history_privacy_and_the_leaderboard(server):
    alice = await signed_up(server.base, "alice")
    bob = await signed_up(server.base, "bob")
    carol = await signed_up(server.base, "carol")
    public = await finished(alice, bob, 1, mode="match", length=5, rated=True)
    private = await finished(alice, bob, 0, mode="match", length=1, rated=True, private=True)
    unrated = await finished(carol, alice, 0, mode="single_game")

    async def profile(browser: Browser, name: str, done: int) -> dict:
        for _ in range(100):
            body = (await browser.get(f"/api/players/{name}")).body
            if body["matches"] == done:
                return body
            await asyncio.sleep(0.1)
        raise AssertionError(body)

    # A rematch goes into both histories (never rated); a match nobody joined into none.
    carol_token, alice_token = TOKENS[unrated]
    offered = await carol.post(f"/api/matches/{unrated}/rematch", {"token": carol_token})
    rematch = offered.body["match"]
    taken = await alice.post(f"/api/matches/{rematch}/join", {"rematch_token": alice_token})
    await leave(server.base, rematch, taken.body["token"])
    cancelled = (await alice.post("/api/matches", {"mode": "single_game"})).body
    await leave(server.base, cancelled["match"], cancelled["token"])
    mine = await profile(alice, "alice", 4)
    assert mine["own"] is True and mine["experience"] == 6
    assert [h["match"] for h in mine["history"]] == [rematch, unrated, private, public]
    assert mine["history"][0]["won"] is False and mine["history"][0]["rated"] is False
    mine["history"].pop(0)
    newest = mine["history"][0]
    assert newest["opponent"] == "carol" and newest["won"] is True and newest["rated"] is False
    assert newest["change"] is None and newest["link"] == f"/m/{unrated}"
    assert mine["history"][2]["score"] == [5, 0] and mine["history"][2]["change"] > 0
    # Anyone else (signed in or not) sees no private match, and no link to it on the chart.
    for viewer in (Browser(server.base), carol):
        seen = await profile(viewer, "ALICE", 4)
        assert seen["own"] is False and seen["username"] == "alice"
        assert [h["match"] for h in seen["history"]] == [rematch, unrated, public]
        assert [p["match"] for p in seen["chart"]] == [public, None]
        assert seen["rating"] == mine["rating"] and seen["total"] == 3
    assert mine["chart"][-1]["rating"] == mine["rating"]
    # Carol's history is her own matches only.
    carols = (await profile(carol, "carol", 2))["history"]
    assert [h["match"] for h in carols] == [rematch, unrated]
    # The leaderboard: rated players with at least 5 points of experience, best first.
    board = (await Browser(server.base).get("/api/leaderboard")).body
    assert board["min_experience"] == 5
    assert [(p["rank"], p["username"]) for p in board["players"]] == [(1, "alice"), (2, "bob")]
    assert board["players"][0]["rating"] > board["players"][1]["rating"]
    assert board["players"][0]["matches"] == 4 and board["players"][1]["matches"] == 2
    assert (await Browser(server.base).get("/api/players/nobody")).status == 404
    assert (await Browser(server.base).get("/api/players/alice?page=0")).status == 400
