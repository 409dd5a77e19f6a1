"""The site in other languages (issue 27): with Turkish, Greek or Arabic picked, the translated
pages show no English catalogue string, `<html lang dir>` name the language, Arabic mirrors the
layout without horizontal overflow on a phone, and screenshots of each are saved. The picker in
the header switches the language and remembers it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from harness.browser import DESKTOP, PHONE, SCREENSHOTS

MESSAGES = Path(__file__).resolve().parents[2] / "web-client" / "src" / "i18n" / "messages"
ENGLISH: dict[str, str] = json.loads((MESSAGES / "en.json").read_text(encoding="utf-8"))
# The pages translated so far, by path.
PAGES = {"lobby": "/"}
# English words that may show in any language: none yet beyond the cognates found automatically
# (a message whose translation equals the English one is not looked for).
ALLOW: set[str] = set()


def english_left(text: str, lang: str) -> list[str]:
    """The plain English messages (no arguments) that `text` shows though `lang` words them
    differently."""
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
    for lang in ("tr", "el", "ar"):
        for label, viewport in (("phone", PHONE), ("desktop", DESKTOP)):
            page = await net.new(viewport=viewport, who=f"{lang}-{label}")
            await page.context.add_init_script(f"localStorage.setItem('fg:lang', '{lang}')")
            for name, path in PAGES.items():
                await page.goto(net.base + path)
                await page.wait_for_selector(".topbar .lang-select")
                loading = json.loads((MESSAGES / f"{lang}.json").read_text("utf-8"))[
                    "common.loading"
                ]
                await page.wait_for_function(
                    "w => !document.body.innerText.includes(w)", arg=loading
                )
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
