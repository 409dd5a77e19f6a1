"""Driving the networked pages in Chromium: the lobby, a player's page and a spectator's page.

A `Seat` plays whatever the page offers: on its turn it takes the first step of the move list
(or a hitting one when asked), by clicks or by keys only; it rolls, takes and accepts when
the page asks it to. Nothing is scripted about the dice: games go wherever they go.
"""

from __future__ import annotations

import asyncio
import re
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Locator, Page

from harness.browser import DESKTOP, PHONE

if TYPE_CHECKING:
    from tests.browser.conftest import NetPages

VIEW = """(() => {
  const f = window.fairgammon;
  if (!f || !f.game) return null;
  const v = f.game.current();
  return {phase: v.phase, turn: v.turn, viewer: v.viewer, pending: v.pending, offer: v.offer,
          result: v.result, boards: v.boards, cube: v.cube, dice: v.dice, match: v.match,
          version: v.version, spectators: v.spectators, players: v.players,
          rolls: v.fairness ? v.fairness.rolls.map(r => r.check) : [],
          link: f.session.link, caughtUp: f.session.caughtUp};
})()"""

SEAT_STATE = """(() => {
  const f = window.fairgammon;
  if (!f || !f.session) return null;
  const c = f.session.core, t = c.tracker;
  return {seat: c.seat, game: t.game, k: t.k, clock: t.clock.phase, seats: t.clock.seats,
          recommits: t.recommits, deciding: f.session.deciding,
          pending: [...c.pending.values()].map(p => ({ticket: p.ticket, seq: p.seq,
                    state: p.state, build: p.build, action: p.action && p.action.t})),
          held: [...c.held.entries()].map(([g, h]) => [g, h && {n: h.n, from: h.chain.from}]),
          asked: [...c.asked], done: [...c.done], acked: c.ackedRecommit};
})()"""
"""What a seat's core holds (its pending actions, chains, what it asked for): printed when
:func:`play` times out, to tell a held action from one never sent or refused."""


async def watch_on_desktop_and_phone(
    net: NetPages, match_id: str, timeout_ms: int
) -> tuple[Page, Page]:
    """A desktop and a phone spectator's page of the match, each caught up."""
    pages = []
    for viewport, who in ((DESKTOP, "desktop spectator"), (PHONE, "phone spectator")):
        page = await net.new(viewport, who=who)
        page.set_default_timeout(timeout_ms)
        await page.goto(f"{net.base}/m/{match_id}#watch")
        await page.wait_for_function("window.fairgammon && window.fairgammon.session.caughtUp")
        pages.append(page)
    return pages[0], pages[1]


async def view(page: Page) -> dict[str, Any]:
    """The GameView the page renders (a subset), or {} before the page has booted."""
    return await page.evaluate(VIEW) or {}


async def create_match(
    page: Page,
    base: str,
    name: str,
    mode: str = "single_game",
    length: int | None = None,
    clock: int | None = None,
    reserve: int | None = None,
) -> tuple[str, str, str]:
    """Create a match in the lobby UI; returns (match id, invite link, spectator link)."""
    await fill_lobby_form(page, base, name, mode, length, clock)
    if reserve is not None:
        await page.select_option("select[name=reserve]", str(reserve))
    await page.click("button.create")
    await page.wait_for_url(re.compile(r".*/m/[0-9a-f]{32}$"))
    await page.wait_for_selector(".invite:not([hidden])")
    match_id = page.url.rsplit("/", 1)[1]
    invite = await page.input_value(".invite .invitelink input")
    watch = await page.input_value(".invite .watchlink input")
    # The links name the server as configured (localhost); tests use the loopback address.
    return match_id, same_host(invite, base), same_host(watch, base)


async def fill_lobby_form(
    page: Page, base: str, name: str, mode: str, length: int | None, clock: int | None
) -> None:
    """Open the lobby and fill what a new match and a game against the computer share."""
    await page.goto(f"{base}/")
    await page.fill("input[name=name]", name)
    await page.click(f"label[for=mode-{mode}]")
    if length is not None:
        await page.fill("input[name=length]", str(length))
    if clock is not None:
        await page.fill("input[name=clock]", str(clock))


def same_host(url: str, base: str) -> str:
    return re.sub(r"^https?://[^/]+", base, url)


async def join_match(page: Page, invite: str, name: str) -> None:
    await page.goto(invite)
    await page.fill(".join-card input[name=name]", name)
    await page.click(".join-card button.join")
    await page.wait_for_function("window.fairgammon && window.fairgammon.session.caughtUp")


async def leave_match(page: Page) -> None:
    """Leave the page's match from its info panel (a forfeit), confirming the browser's dialog."""
    page.once("dialog", lambda dialog: dialog.accept())
    await page.click(".matchinfo-panel button.leave")


async def ask_for_rematch(page: Page, base: str, match_id: str) -> str:
    """Click Rematch on the finished match ``match_id``: the page goes to a new match, whose id
    this returns."""
    await page.click(".result button.next")
    await page.wait_for_url(re.compile(rf"{base}/m/(?!{match_id})[0-9a-f]{{32}}$"))
    return page.url.rsplit("/", 1)[1]


def first_step(labels: list[str], prefer_hits: bool) -> int:
    """Index of the step to play among the move list's labels ("13/10", "Bar/22*", "6/Off")."""
    if prefer_hits:
        for i, label in enumerate(labels):
            if label.endswith("*"):
                return i
    return 0


def parse_step(label: str) -> tuple[int, int]:
    a, b = label.rstrip("*").split("/")
    return (25 if a == "Bar" else int(a)), (0 if b == "Off" else int(b))


def grid(place: int) -> tuple[int, int]:
    """Row and column of a point on screen (the board's keyboard grid)."""
    return (0, place - 13) if place >= 13 else (1, 12 - place)


@dataclass
class Seat:
    page: Page
    keyboard: bool = False
    prefer_hits: bool = False
    double_next: bool = False
    drop_next: bool = False
    turns: int = 0
    acted_at: int = -1
    log: list[str] = field(default_factory=list)

    async def click(self, target: str | Locator) -> None:
        """Click a selector or locator of the page; a timeout says what the page showed."""
        try:
            await (self.page.click(target) if isinstance(target, str) else target.click())
        except PlaywrightError as exc:
            raise AssertionError(f"{exc}\n{await self.state()}") from None

    async def state(self) -> str:
        """What the page shows and its seat core holds (for a failure's message)."""
        listed = await self.page.eval_on_selector(
            ".movelist", "el => ({empty: el.dataset.empty, n: el.children.length})"
        )
        return (
            f"view: {await view(self.page)}; move list: {listed}; "
            f"core: {await self.page.evaluate(SEAT_STATE)}; log: {self.log[-8:]}"
        )

    async def labels(self) -> list[str]:
        return await self.page.eval_on_selector_all(
            ".movelist button.opt .mv", "els => els.map(e => e.textContent.trim())"
        )

    async def step(self) -> str | None:
        """Do what the page asks of this seat now, if anything; returns what it did. A seat
        acts at most once per version of the match: its answer may still be on its way."""
        v = await view(self.page)
        if not v or v.get("pending") or v["version"] == self.acted_at:
            return None
        try:
            done = await self.act(v)
        except AssertionError:
            # The match moved on while this seat was acting on what it had read (another
            # page of the same seat acted first: a correspondence seat open twice): look again.
            now = await view(self.page)
            if now and now["version"] != v["version"]:
                return None
            raise
        if done and done != "moved":  # a sent play shows as pending by itself
            self.acted_at = v["version"]
        return done

    async def act(self, v: dict[str, Any]) -> str | None:
        me = v["viewer"]
        phase = v["phase"]
        if phase == "moving" and v["turn"] == me:
            await self.play_turn()
            return "moved"
        if phase == "decide" and v["turn"] == me:
            if self.double_next:
                self.double_next = False
                # Double asks first: Shift+D twice, or Double then its confirmation.
                if self.keyboard:
                    await self.page.keyboard.press("Shift+D")
                    await self.page.keyboard.press("Shift+D")
                else:
                    await self.click("button.double")
                    await self.click("button.confirm-double")
                return "doubled"
            if self.keyboard:
                await self.page.keyboard.press("d")
            else:
                await self.click("button.roll")
            return "rolled"
        if phase == "offer" and v["offer"] and v["offer"]["by"] != me:
            if self.drop_next and v["offer"]["kind"] == "double":
                self.drop_next = False
                await self.click(".offer button.drop")
                return "dropped"
            await self.click(".offer button.take, .offer button.accept")
            # A seat that meant to double and took the other's double instead has had its
            # double: it must not redouble before the test looks (the double takes two taps).
            if v["offer"]["kind"] == "double":
                self.double_next = False
            return "answered"
        return None

    async def play_turn(self) -> None:
        for _ in range(4):
            labels = await self.labels()
            if not labels:
                break
            i = first_step(labels, self.prefer_hits)
            if self.keyboard:
                await self.key_step(*parse_step(labels[i]))
            else:
                option = self.page.locator(f'.movelist button.opt[data-index="{i}"]')
                await self.click(option)  # pick
                await self.click(option)  # play
            self.log.append(labels[i])
        end = self.page.locator("button.end")
        if await end.is_visible() and await end.is_enabled():
            if self.keyboard:
                await self.page.keyboard.press("e")
            else:
                await self.click(end)
        self.turns += 1

    # ---- keyboard only -------------------------------------------------------------------

    async def focused_place(self) -> int | None:
        place = await self.page.evaluate(
            "document.activeElement && document.activeElement.dataset"
            " ? document.activeElement.dataset.place ?? null : null"
        )
        return int(place) if place is not None else None

    async def focus_board(self) -> int:
        for _ in range(40):
            place = await self.focused_place()
            if place is not None:
                return place
            await self.page.keyboard.press("Tab")
        raise AssertionError("Tab never reached the board")

    async def go_to(self, place: int) -> None:
        at = await self.focus_board()
        (r0, c0), (r1, c1) = grid(at if 1 <= at <= 24 else 1), grid(place)
        if r1 != r0:
            await self.page.keyboard.press("ArrowUp" if r1 == 0 else "ArrowDown")
        for _ in range(abs(c1 - c0)):
            await self.page.keyboard.press("ArrowRight" if c1 > c0 else "ArrowLeft")
        assert await self.focused_place() == place

    async def key_step(self, source: int, target: int) -> None:
        """One checker step by keys: select the source (B for the bar), then the target (O to
        bear off); answer a die choice with Enter."""
        if source == 25:
            await self.focus_board()
            await self.page.keyboard.press("b")
        else:
            await self.go_to(source)
            await self.page.keyboard.press("Enter")
        if target == 0:
            await self.page.keyboard.press("o")
        else:
            await self.go_to(target)
            await self.page.keyboard.press("Enter")
        if await self.page.locator(".choice:not([hidden])").count():
            await self.page.keyboard.press("Enter")  # the first route offered (focused)


async def play(
    seats: list[Seat], until, timeout: float = 120.0, poll: float = 0.03
) -> dict[str, Any]:
    """Let the seats act until ``until(views)`` holds; returns the first seat's last view."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        views = [await view(s.page) for s in seats]
        if until(views):
            return views[0]
        acted = False
        for s in seats:
            acted = bool(await s.step()) or acted
        if not acted:
            await asyncio.sleep(poll)
    views = [await view(s.page) for s in seats]
    cores = [await s.page.evaluate(SEAT_STATE) for s in seats]
    raise AssertionError(f"timed out; last views: {views}; seat cores: {cores}")


def on_bar(v: dict[str, Any]) -> bool:
    return v["boards"][0][25] + v["boards"][1][25] > 0


def to_play(v: dict[str, Any], seat: int) -> bool:
    """``seat`` must decide or move now, with nothing of its own in flight."""
    return v["phase"] in ("moving", "decide") and v["turn"] == seat and not v["pending"]


async def play_the_computer(
    page: Page, base: str, name: str, mode: str, level: str, length: int | None = None,
    clock: int | None = None,
) -> str:
    await fill_lobby_form(page, base, name, mode, length, clock)
    await page.click(f"label[for=level-{level}]")
    await page.click("button.play-bot")
    await page.wait_for_url(re.compile(r".*/m/[0-9a-f]{32}$"))
    await page.wait_for_function("window.fairgammon && window.fairgammon.session.caughtUp")
    return page.url.rsplit("/", 1)[1]


async def no_overflow(page: Page, width: int) -> None:
    """Nothing on the page is wider than the screen."""
    wide = await page.evaluate("""() => [...document.querySelectorAll('body *')]
      .filter((e) => e.getBoundingClientRect().right > innerWidth + 0.5)
      .slice(0, 5).map((e) => `${e.tagName}.${e.className}`)""")
    scroll = await page.evaluate("document.documentElement.scrollWidth")
    assert scroll <= width and wide == [], (page.url, width, scroll, wide)
