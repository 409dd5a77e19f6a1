"""Player strings are text on every page, and the Content-Security-Policy is enforced: Chromium
against one real server (and Redis) shared by every case of this module.

Guest names, a spectator's chat name, chat lines, a profile URL and the contents of a
transcript carry an injection corpus (markup that would run ``__pw=1`` if it were ever parsed:
attribute break-outs, ``<svg onload>``, ``<img onerror>``, ``</title><script>``, ``javascript:``
URLs, entities, right-to-left and bidi-override text, very long strings). On the lobby, a
match as its player (during and after the match) and as a spectator, the replay of a finished
game, the profile and the leaderboard, /verify and /local, each check asserts: no payload ran,
no element (SVG included) has an ``on*`` attribute or a ``javascript:`` URL, no inline or
foreign script, no CSP violation, no page error, every page came with the policy, and the
payload is on screen as the text it is. Then a positive control on the same page: an inline
``<script>`` and an inline handler put in by the test are blocked, each reported by a
``securitypolicyviolation`` event, and so is ``eval``. The same through deploy/nginx.conf.
"""

from __future__ import annotations

import asyncio
import json
import re
import urllib.parse
import urllib.request
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from playwright.async_api import Browser, Page

from harness.accounts import Browser as Account
from harness.accounts import signed_up
from harness.browser import DESKTOP, launched_chromium, under_csp
from harness.proxy_process import ProxyProcess
from harness.serverproc import ServerProcess
from harness.srv_support import Peer, empty_redis, play_out
from protocol import codec
from protocol import messages as m
from protocol.client import MatchClient, create_match, join_match
from server.web import csp
from tests.browser.net_support import create_match as create_in_lobby
from tests.browser.net_support import leave_match

pytestmark = pytest.mark.asyncio(loop_scope="module")

LOADED = 30_000
"""Longest wait (ms) for something a page must show: reached only when something is wrong."""

# ---- the corpus: each would set window.__pw if it were parsed as markup -----------------------

NAMES = (  # guest names: at most 24 characters, printable (the lobby's rule)
    '"><svg onload=__pw=1>',
    "<img src onerror=__pw=1>",
    "&lt;i&gt;&amp; <b>x</b>",
    "javascript:__pw=1",
    "'><a href=x onclick=__pw",
    "שלום <svg onload=__pw=1>",
    'x" onmouseover="__pw=1',
)
SPECTATOR = "</title><svg/onload=__pw"
CHAT = (  # chat lines: at most 200 characters
    "</title><script>__pw=1</script>",
    '<img src=x onerror=__pw=1><svg onload="__pw=1"><iframe srcdoc="<script>__pw=1</script>">',
    '<a href="javascript:__pw=1">click</a> javascript:__pw=1',
    ('"><svg onload=__pw=1>' * 10)[:200],
)
LONG = ('"><img src onerror=__pw=1>' * 12)[:300]
BIDI = "\u202e<svg onload=__pw=1>\u202c \u2067عربي\u2069"
"""Names only a transcript file (or this device's own players) can bring: longer than the lobby
allows, and with the bidi overrides the server refuses."""

# ---- what a page holds ------------------------------------------------------------------------

WATCH = """() => {
  window.__csp = [];
  document.addEventListener('securitypolicyviolation', (e) => window.__csp.push(
    {directive: e.violatedDirective, blocked: e.blockedURI, sample: e.sample}), true);
}"""

SCAN = """() => {
  const all = [...document.querySelectorAll('*')];
  const handlers = [], jsUrls = [], labels = [];
  for (const el of all) {
    for (const a of el.attributes) {
      const name = a.name.toLowerCase();
      if (name.startsWith('on')) handlers.push(`${el.tagName}[${a.name}=${a.value}]`);
      const url = /^(href|xlink:href|src|action|formaction|data)$/.test(name);
      if (url && /^\\s*javascript:/i.test(a.value))
        jsUrls.push(`${el.tagName}[${a.name}=${a.value}]`);
      if (['aria-label', 'title', 'placeholder', 'alt'].includes(name)) labels.push(a.value);
    }
  }
  for (const e of document.querySelectorAll('input, textarea')) labels.push(e.value);
  for (const t of document.querySelectorAll('title')) labels.push(t.textContent);
  const scripts = [...document.scripts]
    .filter((s) => !s.src || new URL(s.src).origin !== location.origin)
    .map((s) => s.src || `inline: ${s.text.slice(0, 80)}`);
  return {
    pwned: window.__pw ?? null,
    handlers, jsUrls, scripts, labels,
    embedded: [...document.querySelectorAll('iframe, frame, object, embed, base')]
      .map((e) => e.tagName),
    violations: window.__csp ?? null,
    text: document.body.innerText,
    content: document.body.textContent,
    title: document.title,
  };
}"""

CONTROL = """async () => {
  const before = window.__csp.length;
  const script = document.createElement('script');
  script.textContent = 'window.__inline = 1';
  document.body.append(script);
  const button = document.createElement('button');
  button.setAttribute('onclick', 'window.__handler = 1');
  document.body.append(button);
  button.click();
  // (In a task of its own: code the test evaluates directly is exempt from the policy.)
  const evaled = await new Promise((resolve) => setTimeout(() => {
    try { resolve(eval('"eval ran"')); } catch (e) { resolve(e.name); }
  }));
  const deadline = Date.now() + 5000;
  while (window.__csp.length < before + 3 && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 10));
  script.remove();
  button.remove();
  return {inline: window.__inline ?? null, handler: window.__handler ?? null, evaled,
          violations: window.__csp.slice(before).map((v) => v.directive)};
}"""


@dataclass
class Watched:
    """One browser context's page, with what went wrong in it and every document it loaded
    (URL, Content-Security-Policy header)."""

    page: Page
    who: str
    errors: list[str] = field(default_factory=list)
    expected: tuple[str, ...] = ()
    """Console errors this page is meant to have (the API's 404 for a missing player)."""
    documents: list[tuple[str, str | None]] = field(default_factory=list)

    async def check(self, shown: tuple[str, ...] = (), labelled: tuple[str, ...] = ()) -> dict:
        """Nothing ran, nothing can run, every string of ``shown`` is on screen as text and
        every one of ``labelled`` is a label (an attribute value): the page's state, then the
        CSP's positive control."""
        state = await self.page.evaluate(SCAN)
        where = f"{self.who} at {self.page.url}"
        assert state["pwned"] is None, where
        assert state["handlers"] == [], where
        assert state["jsUrls"] == [], where
        assert state["scripts"] == [], where
        assert state["embedded"] == [], where
        assert state["violations"] == [], where
        assert [e for e in self.errors if not any(x in e for x in self.expected)] == [], where
        for text in shown:
            assert text in state["text"], f"{where}: {text!r} is not on screen"
        for text in labelled:
            assert any(text in label for label in state["labels"]), f"{where}: no label {text!r}"
        assert self.documents, where
        for url, policy in self.documents:
            assert policy is not None, f"{url} came without a Content-Security-Policy"
            assert "script-src 'self';" in policy and "unsafe" not in policy, policy
        await self.blocked()
        return state

    async def blocked(self) -> None:
        """The positive control: an inline script, an inline handler and eval, all refused,
        each reported."""
        got = await self.page.evaluate(CONTROL)
        assert got["inline"] is None and got["handler"] is None, got
        assert got["evaled"] == "EvalError", got
        assert sorted(got["violations"]) == ["script-src", "script-src-attr", "script-src-elem"]
        await self.page.evaluate("window.__csp = []")  # the control's own violations
        self.errors[:] = [e for e in self.errors if "Content Security Policy" not in e]


@dataclass
class World:
    """The shared server and what was played on it before the first case."""

    server: ServerProcess
    proxy: ProxyProcess
    """deploy/nginx.conf in front of the server (started by the case that uses it)."""
    finished: str
    """A single game played to the end by two random clients named NAMES[0] and NAMES[1],
    with chat in both rooms."""
    transcript: dict[str, Any]
    member: str
    """An account whose history holds a match against a guest named NAMES[2], and a rated
    match against ``rival`` (both are on the leaderboard)."""
    rival: str


async def chat_as(peer: Peer, room: str, lines: tuple[str, ...], name: str | None) -> None:
    """Say ``lines`` on ``peer`` and wait for each to come back (it is stored then)."""
    for line in lines:
        await peer.send_msg(m.ChatSend(room, line, name))
        await peer.next(m.Chat, lambda x, line=line: x.text == line)


async def played(server: ServerProcess, proxy: ProxyProcess) -> World:
    base, ws = server.base, server.ws
    created = await create_match(base, name=NAMES[0], mode="single_game")
    joined = await join_match(base, created["match"], name=NAMES[1])
    finished = created["match"]
    seat0, seat1, fan = await Peer.open(ws), await Peer.open(ws), await Peer.open(ws)
    await seat0.hello(finished, created["token"])
    await seat1.hello(finished, joined["token"])
    await fan.hello(finished)
    await chat_as(seat0, "players", CHAT[:2], None)
    await chat_as(seat1, "players", CHAT[2:], None)
    await chat_as(fan, "spectators", CHAT, SPECTATOR)
    for peer in (seat0, seat1, fan):
        await peer.close()
    a = MatchClient(ws, finished, created["token"])
    b = MatchClient(ws, finished, joined["token"])
    async with a, b:
        await play_out(a, b, seed=11)
    exported = await Account(base).get(f"/api/matches/{finished}/games/1/transcript.json")
    assert exported.status == 200, exported.body

    # An account: a match against a guest (left at once), and a rated one against a rival.
    member, rival = "eve_-1", "zed-_2"
    eve = await signed_up(base, member)
    zed = await signed_up(base, rival)
    for opponent, body in (
        (None, {"mode": "single_game"}),
        (zed, {"mode": "match", "length": 1, "rated": True}),
    ):
        made = await eve.post("/api/matches", body)
        assert made.status == 201, made.body
        match = made.body["match"]
        if opponent is None:
            token = (await join_match(base, match, name=NAMES[2]))["token"]
        else:
            answer = await opponent.post(f"/api/matches/{match}/join", {})
            assert answer.status == 200, answer.body
            token = answer.body["token"]
        host, guest = MatchClient(ws, match, made.body["token"]), MatchClient(ws, match, token)
        async with host, guest:
            await guest.leave()
            await host.wait_for(lambda t: t.over is not None)
    await recorded(eve, member, 2)
    return World(server, proxy, finished, exported.body, member, rival)


async def recorded(account: Account, name: str, matches: int) -> None:
    """Wait until the results of ``matches`` matches are in ``name``'s history."""
    for _ in range(300):
        body = (await account.get(f"/api/players/{name}")).body
        if len(body.get("history", [])) >= matches:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"{name}'s history: {body}")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def world(redis_process, dist: Path, tmp_path_factory) -> AsyncIterator[World]:
    empty_redis(redis_process)
    server = ServerProcess(redis_process.url, FAIRGAMMON_LEADERBOARD_EXPERIENCE="1")
    proxy = ProxyProcess(tmp_path_factory.mktemp("nginx"), [server.port])
    # The pages may come through the proxy too (the WebSocket checks their origin).
    origins = f"http://127.0.0.1:{server.port},http://127.0.0.1:{proxy.port}"
    server.env["FAIRGAMMON_ALLOWED_ORIGINS"] = origins
    await asyncio.to_thread(server.start)
    try:
        yield await played(server, proxy)
    finally:
        await asyncio.to_thread(server.stop)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def chromium() -> AsyncIterator[Browser]:
    """One Chromium for every case of the module (the conftest's ``browser`` is per test)."""
    async with launched_chromium() as browser:
        yield browser


@pytest_asyncio.fixture(loop_scope="module")
async def pages(chromium: Browser) -> AsyncIterator[Any]:
    """Opens watched pages in fresh contexts; closes them after the test."""
    contexts = []

    async def opener(who: str) -> Watched:
        context = await chromium.new_context(viewport=DESKTOP, reduced_motion="reduce")
        contexts.append(context)
        await context.add_init_script(f"({WATCH})()")
        page = under_csp(await context.new_page())
        page.set_default_timeout(LOADED)
        watched = Watched(page, who)
        page.on("pageerror", lambda exc: watched.errors.append(f"pageerror: {exc}"))
        page.on(
            "console",
            lambda msg: watched.errors.append(msg.text) if msg.type == "error" else None,
        )
        page.on(
            "response",
            lambda r: (
                watched.documents.append((r.url, r.headers.get("content-security-policy")))
                if r.request.resource_type == "document"
                else None
            ),
        )
        return watched

    yield opener
    for context in contexts:
        await context.close()


# ---- the pages --------------------------------------------------------------------------------


async def test_lobby_and_invite(world: World, pages) -> None:
    base = world.server.base
    waiting = await create_match(base, name=NAMES[4], mode="single_game")
    live = await create_match(base, name=NAMES[3], mode="match", length=3)
    await join_match(base, live["match"], name=NAMES[5])
    lobby = await pages("lobby")
    await lobby.page.goto(f"{base}/")
    await lobby.page.locator(f".open-list li[data-match='{waiting['match']}']").wait_for()
    await lobby.page.locator(f".live-list li[data-match='{live['match']}']").wait_for()
    await lobby.check(shown=(NAMES[4], f"{NAMES[3]} vs {NAMES[5]}"))
    # The invitee's page names the host.
    invited = await pages("invitee")
    await invited.page.goto(f"{base}/m/{waiting['match']}")
    await invited.page.locator(".join-card").wait_for()
    await invited.check(shown=(f"{NAMES[4]} invites you to play",))


async def test_match_as_player_and_as_spectator(world: World, pages) -> None:
    base, ws = world.server.base, world.server.ws
    host_name, guest_name = NAMES[0], NAMES[6]  # both break out of a quoted attribute
    host = await pages("player")
    match_id, _, _ = await create_in_lobby(host.page, base, host_name)
    joined = await join_match(base, match_id, name=guest_name)
    fan = await pages("spectator")
    opponent = MatchClient(ws, match_id, joined["token"])
    async with opponent:
        await fan.page.goto(f"{base}/m/{match_id}#watch")
        for w in (host, fan):
            await w.page.wait_for_function(
                "window.fairgammon && window.fairgammon.session.caughtUp"
            )
            await w.page.locator("svg.board .checker").first.wait_for()
        await opponent.send_raw(codec.encode(m.ChatSend("players", CHAT[0], None)))
        await host.page.fill(".chat-form input", CHAT[1])
        await host.page.press(".chat-form input", "Enter")
        await fan.page.fill(".chat-name input", SPECTATOR)
        for line in CHAT[2:]:
            await fan.page.fill(".chat-form input", line)
            await fan.page.press(".chat-form input", "Enter")
        for w, lines in ((host, CHAT[:2]), (fan, CHAT[2:])):
            for line in lines:
                await w.page.locator(".chat-lines .chat-line", has_text=line).wait_for()
        checkers = tuple(f"{n} checker on point" for n in (host_name, guest_name))
        await host.check(shown=(host_name, guest_name, *CHAT[:2]), labelled=checkers)
        state = await fan.check(shown=(host_name, guest_name, *CHAT[2:]), labelled=checkers)
        assert f"{SPECTATOR} (guest)" in state["text"]
        # Each checker's label holds the whole name (no quote cut it short): 15 a seat.
        labels = [lab for lab in state["labels"] if " checker on point " in lab]
        assert (
            sum(lab.startswith(host_name) for lab in labels)
            + sum(lab.startswith(guest_name) for lab in labels)
            == len(labels)
            > 0
        )

        # After the match: the player left (a forfeit), both pages show the result.
        await leave_match(host.page)
        await opponent.wait_for(lambda t: t.over is not None)
    for w in (host, fan):
        await w.page.locator(".result").first.wait_for()
        await w.check(shown=(host_name, guest_name), labelled=checkers)


async def test_finished_match_replay_and_verify(world: World, pages) -> None:
    base, finished = world.server.base, world.finished
    names = (NAMES[0], NAMES[1])
    # A spectator coming late: the board, the result and the spectators' chat.
    late = await pages("late spectator")
    await late.page.goto(f"{base}/m/{finished}#watch")
    await late.page.wait_for_function("window.fairgammon && window.fairgammon.session.caughtUp")
    for line in CHAT:
        await late.page.locator(".chat-lines .chat-line", has_text=line).wait_for()
    await late.check(shown=(*names, *CHAT))  # (the winner may have no checker left)

    replay = await pages("replay")
    await replay.page.goto(f"{base}/m/{finished}/replay/1")
    await replay.page.wait_for_function("window.fairgammon && window.fairgammon.replay")
    await replay.page.locator("button.replay-next").click()
    await replay.check(shown=names, labelled=(f"{NAMES[1]} checker",))

    verify = await pages("verify")
    await verify.page.goto(f"{base}/verify?match={finished}")
    await verify.page.locator(".verdict.ok").wait_for()
    state = await verify.check(shown=("verified",))
    assert f"{names[world.transcript['result']['winner']]} won" in state["text"]
    # A transcript file brings any names at all: longer ones, bidi overrides; or it is not
    # even JSON, and the error quotes it.
    doc = json.loads(json.dumps(world.transcript))
    doc["seats"][0]["name"], doc["seats"][1]["name"] = LONG[:100], BIDI
    await verify.page.goto(f"{base}/verify")
    await verify.page.fill(".verify textarea", json.dumps(doc))
    await verify.page.click("button.verify")
    await verify.page.locator(".verdict.ok").wait_for()
    await verify.check(shown=("verified",))
    winner = verify.page.locator(".verdict.ok bdi.winner")  # isolated: it reorders nothing
    assert await winner.text_content() == doc["seats"][world.transcript["result"]["winner"]]["name"]
    await verify.page.fill(".verify textarea", CHAT[1])
    await verify.page.click("button.verify")
    await verify.page.locator(".verdict.bad").wait_for()
    await verify.check(shown=("NOT VERIFIED", CHAT[1][:10]))


async def test_profile_and_leaderboard(world: World, pages) -> None:
    base = world.server.base
    reader = await pages("profile and leaderboard")
    await reader.page.goto(f"{base}/u/{world.member}")
    await reader.page.locator(".history tbody tr").nth(1).wait_for()
    await reader.check(shown=(world.member, f"{NAMES[2]} (guest)", world.rival))
    await reader.page.goto(f"{base}/leaderboard")
    await reader.page.locator(".leaders tbody tr").nth(1).wait_for()
    await reader.check(shown=(world.member, world.rival))
    # A profile URL carrying markup: the page names what was asked for, as text; a match URL
    # carrying markup: no such match. (A "/" would make another path.)
    stranger = await pages("profile and match urls")
    stranger.expected = ("status of 404",)  # the API's answer: no such player, no such match
    for asked in (NAMES[0], LONG):
        await stranger.page.goto(f"{base}/u/{urllib.parse.quote(asked, safe='')}")
        await stranger.page.locator("text=No player of that name.").wait_for()
        await stranger.check(shown=(asked,))
    await stranger.page.goto(f"{base}/m/{urllib.parse.quote(NAMES[6], safe='')}#watch")
    await stranger.page.locator("text=No such match").wait_for()
    await stranger.check()


async def test_local_game_with_payload_names(world: World, pages) -> None:
    local = await pages("local")
    await local.page.goto(f"{world.server.base}/local")
    first, second = NAMES[6], BIDI[:24]
    await local.page.fill("input[name=name0]", first)
    await local.page.fill("input[name=name1]", second)
    await local.page.click("button.start")
    await local.page.locator("svg.board .checker").first.wait_for()
    shown = [await n.text_content() for n in await local.page.locator(".player .pname").all()]
    assert sorted(shown) == sorted([first, second.strip()]), shown
    await local.check(shown=(first,), labelled=(f"{first} checker on point",))


async def test_the_proxy_passes_the_policy(world: World, pages) -> None:
    proxy = world.proxy
    await asyncio.to_thread(proxy.start)
    try:
        direct = await asyncio.to_thread(_headers, f"{world.server.base}/")
        through = await asyncio.to_thread(_headers, f"{proxy.base}/")
        # nginx passes the header as the server wrote it for the host it forwarded.
        assert through["content-security-policy"] == csp.policy("127.0.0.1")
        assert direct["content-security-policy"] == csp.policy(f"127.0.0.1:{world.server.port}")
        # Through the proxy the page's own WebSocket is allowed ('self'), and inline is not.
        fan = await pages("spectator through the proxy")
        await fan.page.goto(f"{proxy.base}/m/{world.finished}#watch")
        await fan.page.wait_for_function("window.fairgammon && window.fairgammon.session.caughtUp")
        await fan.check(shown=(NAMES[0], NAMES[1]))
    finally:
        await asyncio.to_thread(proxy.stop)


def _headers(url: str) -> dict[str, str]:
    with urllib.request.urlopen(url, timeout=10) as response:
        return {k.lower(): v for k, v in response.headers.items()}


async def test_the_built_pages_load_only_files(dist: Path) -> None:
    """web-client/dist as built: every script from a file of the site, no inline script, no
    inline handler or style, no <base> (the policy's base-uri is 'none')."""
    for name in ("index.html", "demo.html"):
        html = (dist / name).read_text()
        scripts = re.findall(r"<script\b([^>]*)>(.*?)</script>", html, re.S | re.I)
        assert scripts, name
        for attrs, body in scripts:
            assert re.search(r'\bsrc="/assets/[^"]+\.js"', attrs) and not body.strip(), name
        assert not re.search(r"<[^>]*\s(on[a-z]+|style)\s*=", html, re.I), name
        assert not re.search(r"<(base|style)\b", html, re.I), name
