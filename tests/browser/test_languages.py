"""The site in other languages (issue 27): with Turkish, Greek or Arabic picked, the translated
pages show no English catalogue string, `<html lang dir>` name the language, Arabic mirrors the
layout without horizontal overflow on a phone, and screenshots of each are saved. A match played
by two browsers in each of those languages shows none either (its text, and the labels and
titles screen readers and tooltips give), and in Arabic the page mirrors while the board keeps
its geometry. The picker in the header switches the language and remembers it."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.browser import DESKTOP, PHONE, SCREENSHOTS, under_csp
from harness.serverproc import ServerProcess
from harness.tournament_players import Player
from tests.browser.net_support import create_match, join_match

MESSAGES = Path(__file__).resolve().parents[2] / "web-client" / "src" / "i18n" / "messages"
ENGLISH: dict[str, str] = {
    **json.loads((MESSAGES / "en.json").read_text(encoding="utf-8")),
    # The refusals' English words, generated from protocol/refusals.py.
    **json.loads((MESSAGES.parent / "refusals.en.json").read_text(encoding="utf-8")),
}
# The pages translated so far, by path.
PAGES = {
    "lobby": "/",
    "rules": "/rules",
    "local": "/local",
    "verify": "/verify",
    "leaderboard": "/leaderboard",
    "imports": "/imports",
    "tournaments": "/tournaments",
    "analyse": "/analyse#pid=4HPwATDgc%2FABMA&dice=31&ply=2",
}
# What a page draws after its data arrives, waited for before the scan.
READY = {
    "tournaments": ".upcoming li[data-tournament]",
    "tournament": ".tournament-head .countdown",
    "analyse": ".an-plays .an-play",
    "moderation": ".mod-audit h2",
}
HOST = "lang_host"  # creates the tournament, and moderates


@pytest.fixture
def server(redis_url) -> Iterator[ServerProcess]:
    proc = ServerProcess(redis_url, FAIRGAMMON_MODERATORS=HOST)
    proc.start()
    yield proc
    proc.stop()


# English words that may show in any language: none yet beyond the cognates found automatically
# (a message whose translation equals the English one is not looked for).
ALLOW: set[str] = set()


def english_left(text: str, lang: str) -> list[str]:
    """The plain English messages (no arguments) that `text` shows though `lang` words them
    differently (a message that is a word of another one, like "Game" in "Game over", is
    looked for on its own only)."""
    own = json.loads((MESSAGES / f"{lang}.json").read_text(encoding="utf-8"))
    found = []
    for key, source in ENGLISH.items():
        if "{" in source or source in ALLOW or own[key] == source:
            continue
        if re.search(r"(?<!\w)" + re.escape(source) + r"(?!\w)", text):
            found.append(f"{key}: {source}")
    return found


@pytest.mark.asyncio
async def test_pages_in_turkish_greek_arabic(net) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    # An open Swiss with one player, so that /tournaments lists it and /t/<id> has its terms,
    # countdown and players to show.
    host = Player(HOST, [net.base])
    await host.signup()
    made = await host.call(
        "POST", "/api/tournaments", {"kind": "swiss", "name": "Kupa 27", "length": 3, "rounds": 3}
    )
    assert made.status == 201, made.body
    tid = made.body["tournament"]
    assert (await host.call("POST", f"/api/tournaments/{tid}/join", {})).status == 200
    # Last, /moderation as the moderator (the pages before it are a visitor's).
    pages = {**PAGES, "tournament": f"/t/{tid}", "moderation": "/moderation"}
    for lang in ("tr", "el", "ar"):
        for label, viewport in (("phone", PHONE), ("desktop", DESKTOP)):
            page = await net.new(viewport=viewport, who=f"{lang}-{label}")
            await page.context.add_init_script(f"localStorage.setItem('fg:lang', '{lang}')")
            for name, path in pages.items():
                if name == "moderation":
                    session = {"name": "fg_session", "value": host.cookies["fg_session"]}
                    await page.context.add_cookies([{**session, "url": net.base}])
                await page.goto(net.base + path)
                await page.wait_for_selector(".topbar .lang-select")
                loading = json.loads((MESSAGES / f"{lang}.json").read_text("utf-8"))[
                    "common.loading"
                ]
                await page.wait_for_function(
                    "w => !document.body.innerText.includes(w)", arg=loading
                )
                if name in READY:
                    await page.wait_for_selector(READY[name])
                html = await page.evaluate("[document.documentElement.lang, document.dir]")
                assert html == [lang, "rtl" if lang == "ar" else "ltr"]
                text = await page.evaluate("document.body.innerText")
                assert english_left(text, lang) == [], (lang, name)
                overflow = await page.evaluate(
                    "document.documentElement.scrollWidth - document.documentElement.clientWidth"
                )
                assert overflow <= 0, (lang, label, name, overflow)
                if lang == "ar":
                    # Mirrored: the brand sits at the right edge of the header.
                    box = await page.locator(".topbar .brand").bounding_box()
                    assert box is not None and box["x"] > viewport["width"] / 2
                shot = SCREENSHOTS / f"lang-{name}-{lang}-{label}.png"
                await page.screenshot(path=shot, full_page=True)
            await page.context.close()


@pytest.mark.asyncio
async def test_picker_switches_and_remembers(net) -> None:
    page = await net.new(who="picker")
    await page.goto(net.base + "/")
    await page.wait_for_selector("h1")
    assert await page.locator("h1").inner_text() == ENGLISH["lobby.heroTitle"]
    async with page.expect_navigation():
        await page.select_option(".topbar .lang-select", "de")
    await page.wait_for_selector("h1")
    de = json.loads((MESSAGES / "de.json").read_text(encoding="utf-8"))
    assert await page.locator("h1").inner_text() == de["lobby.heroTitle"]
    await page.goto(net.base + "/rules")
    await page.wait_for_selector(".topbar .lang-select")
    assert await page.evaluate("document.documentElement.lang") == "de"
    assert await page.locator(".topbar a[href='/']").last.inner_text() == de["nav.lobby"]
    await page.context.close()

    # A first visit, nothing picked yet, follows the browser's languages (navigator.languages,
    # the same list the browser sends as Accept-Language).
    context = await net.browser.new_context(locale="el-GR")
    fresh = under_csp(await context.new_page())
    await fresh.goto(net.base + "/")
    await fresh.wait_for_selector("h1")
    el = json.loads((MESSAGES / "el.json").read_text(encoding="utf-8"))
    assert await fresh.evaluate("document.documentElement.lang") == "el"
    assert await fresh.locator("h1").inner_text() == el["lobby.heroTitle"]
    assert await fresh.locator(".topbar .lang-select").input_value() == "el"
    await context.close()


# What a page shows outside its text: the labels screen readers read and the tooltips.
SHOWN = """() => {
  const attrs = ['aria-label', 'title', 'placeholder'];
  const out = [document.body.innerText];
  for (const el of document.querySelectorAll('*')) {
    if (el.closest('[hidden]')) continue;
    for (const a of attrs) if (el.hasAttribute(a)) out.push(el.getAttribute(a));
  }
  return out.join('\\n');
}"""
PHONE_360 = {"width": 360, "height": 740}


async def match_in(net, lang: str, viewport: dict[str, int], who: str):
    page = await net.new(viewport=viewport, who=f"{lang}-{who}")
    await page.context.add_init_script(f"localStorage.setItem('fg:lang', '{lang}')")
    return page


async def shown_english(page, lang: str, names: tuple[str, ...]) -> list[str]:
    """The English catalogue messages the page shows in `lang`, player names left out (a name
    is the player's, not the page's)."""
    for panel in ("details.settings", "details.fairness"):
        await page.eval_on_selector(panel, "d => { d.open = true }")
    text = await page.evaluate(SHOWN)
    for name in names:
        text = text.replace(name, " ")
    return english_left(text, lang)


@pytest.mark.asyncio
async def test_match_in_turkish_greek_arabic(net) -> None:
    """A match between two browsers in Turkish, Greek and Arabic: the creator on a desktop, the
    invited player on a 360-pixel phone; neither shows an English message of the catalogue, nor
    overflows sideways; in Arabic the header mirrors and the board keeps its geometry (point 1
    to the right of point 12, as in any language)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    names = ("Ayla", "Nikos")
    for lang in ("tr", "el", "ar"):
        desk = await match_in(net, lang, DESKTOP, "desktop")
        phone = await match_in(net, lang, PHONE_360, "phone")
        _, invite, _ = await create_match(desk, net.base, names[0])
        await join_match(phone, invite, names[1])
        for page in (desk, phone):
            # The game is on: a roll to play on one board, the other waits for it.
            await page.wait_for_function(
                "() => ['moving', 'decide'].includes(window.fairgammon.game.current().phase)"
            )
        for label, page, viewport in (("desktop", desk, DESKTOP), ("phone", phone, PHONE_360)):
            html = await page.evaluate("[document.documentElement.lang, document.dir]")
            assert html == [lang, "rtl" if lang == "ar" else "ltr"]
            assert await page.locator(".topbar .lang-select").input_value() == lang
            assert await shown_english(page, lang, names) == [], (lang, label)
            overflow = await page.evaluate(
                "document.documentElement.scrollWidth - document.documentElement.clientWidth"
            )
            assert overflow <= 0, (lang, label, overflow)
            board = await page.locator("svg.board").bounding_box()
            assert board is not None and board["x"] >= 0
            assert board["x"] + board["width"] <= viewport["width"] + 0.5, (lang, label, board)
            one = await page.locator("svg.board rect.hit[data-place='1']").bounding_box()
            twelve = await page.locator("svg.board rect.hit[data-place='12']").bounding_box()
            assert one is not None and twelve is not None and one["x"] > twelve["x"], (lang, label)
            if lang == "ar":
                brand = await page.locator(".topbar .brand").bounding_box()
                assert brand is not None and brand["x"] > viewport["width"] / 2, (label, brand)
            await page.screenshot(path=SCREENSHOTS / f"lang-match-{lang}-{label}.png")
        await desk.context.close()
        await phone.context.close()
