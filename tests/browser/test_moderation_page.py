"""Reports and the moderators' page in Chromium against a real server and Redis
(docs/moderation.md): a signed-in spectator reports another's chat line from the match page
and the player from his profile; the moderator, on a 360 px phone, reads the queue (the line in
its context), mutes the player with a reason (the server then refuses his lines), sees it in
the audit log, lifts it (his lines pass again), suspends his rating and bans him (each refusing
a rated match, the ban his lines too, each lifted) and dismisses the other report; the same page on
a desktop. Screenshots of each step, nothing wider than the screen."""

from __future__ import annotations

from websockets.asyncio.client import connect

from harness.accounts import signed_up
from harness.browser import DESKTOP, SCREENSHOTS
from harness.srv_support import Peer, seat_two
from protocol import messages as m
from tests.browser.conftest import served_pages
from tests.browser.net_support import no_overflow
from tests.browser.test_players import sign_up

PHONE_360 = {"width": 360, "height": 780}


async def said(peer: Peer, text: str) -> m.Chat | m.Reject:
    start = len(peer.messages)
    await peer.send_msg(m.ChatSend("spectators", text, None))
    return await peer.next(
        (m.Chat, m.Reject), lambda x: isinstance(x, m.Reject) or x.text == text, start=start
    )


async def test_report_queue_mute_audit_and_lift(browser, redis_url, dist) -> None:
    async with served_pages(browser, redis_url, FAIRGAMMON_MODERATORS="mia_m") as (proc, net):
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        base = net.base
        seated = await seat_two(base, mode="match", length=3)  # two guests play
        # Bob, signed in, watches and chats in the spectators' room.
        bob = await signed_up(base, "bob_m")
        cookie = "; ".join(f"{k}={v}" for k, v in bob.cookies.items())
        ws = await connect(proc.ws, origin=base, additional_headers={"Cookie": cookie})
        bob_ws = Peer(ws)
        await bob_ws.hello(seated.match_id)
        try:
            assert isinstance(await said(bob_ws, "hello all"), m.Chat)
            assert isinstance(await said(bob_ws, "you all <b>stink</b>"), m.Chat)

            # Ann watches, signed in: Bob's lines have a report button; she reports the second.
            ann = await net.new(DESKTOP, who="ann")
            await sign_up(ann, base, "ann_m")
            await ann.goto(f"{base}/m/{seated.match_id}#watch")
            line = ann.locator(".chat-line:has-text('stink')")
            await line.locator(".chat-report").click()
            card = ann.locator(".report-card")
            assert await card.locator(".reported-line").inner_text() == "you all <b>stink</b>"
            await card.locator("textarea[name=reason]").fill("insults the players")
            await ann.screenshot(path=SCREENSHOTS / "report-chat-line-1440x900.png")
            await card.locator("button.send-report").click()
            await card.locator(".report-sent").wait_for()
            await card.locator("button.cancel").click()
            # And the player himself, from his profile.
            await ann.goto(f"{base}/u/bob_m")
            await ann.click(".profile-actions button.report")
            await ann.fill(".report-card textarea[name=reason]", "spams every match he watches")
            await ann.click(".report-card button.send-report")
            await ann.locator(".report-sent").wait_for()

            # Mia, a moderator, on a phone: the queue, the reported line marked in its context.
            mia = await net.new(PHONE_360, who="mia")
            await sign_up(mia, base, "mia_m")
            await mia.goto(f"{base}/moderation")
            items = mia.locator(".mod-queue .report-item")
            await items.nth(1).wait_for()
            first = items.nth(0)
            assert await first.locator(".mod-chat li.reported").inner_text() == (
                "bob_m\nyou all <b>stink</b>"
            )
            assert await first.locator(".mod-chat b").count() == 0  # text, never markup
            await no_overflow(mia, 360)
            await mia.screenshot(path=SCREENSHOTS / "moderation-queue-360.png", full_page=True)

            # She looks at Bob, mutes him with a reason; his next line is refused by the server.
            await first.locator("button.look").click()
            evidence = mia.locator(".mod-player .evidence[data-player=bob_m]")
            await evidence.locator(".answering").wait_for()
            await evidence.locator("select[name=sanction]").select_option("mute")
            await evidence.locator("textarea[name=reason]").fill("insults in the spectators' chat")
            await evidence.locator("button.apply-sanction").click()
            await mia.locator(".evidence .sanction-mute").wait_for()
            refused = await said(bob_ws, "still here")
            assert isinstance(refused, m.Reject) and refused.message.startswith("muted")
            audit = mia.locator(".audit-log li").first
            assert "mia_m muted bob_m" in await audit.inner_text()
            assert "report #1" in await audit.inner_text()
            assert await mia.locator(".mod-queue .report-item").count() == 1  # #1 closed
            await no_overflow(mia, 360)
            await mia.screenshot(path=SCREENSHOTS / "moderation-muted-360.png", full_page=True)

            # Lifted, with a reason: Bob's lines pass again; the lift is audited.
            lifted = mia.locator(".evidence textarea[name=reason]")
            await lifted.fill("apologised")
            await mia.click(".evidence button.lift-mute")
            await mia.locator(".evidence .no-sanction").wait_for()
            assert isinstance(await said(bob_ws, "sorry everyone"), m.Chat)
            latest = await mia.locator(".audit-log li").first.inner_text()
            assert "lifted the mute of bob_m" in latest

            # Suspending the rating and banning, the same way: each refuses what it names (a
            # rated match; a ban also the chat), is audited, and is lifted; then Bob plays rated.
            for kind, code, word in (("suspend", "rating_suspended", "suspended the rating of"),
                                     ("ban", "banned", "banned")):  # fmt: skip
                await evidence.locator("select[name=sanction]").select_option(kind)
                await evidence.locator("textarea[name=reason]").fill(f"{kind}: a test of it")
                await evidence.locator("button.apply-sanction").click()
                await mia.locator(f".evidence .sanction-{kind}").wait_for()
                rated = await bob.post("/api/matches", {"mode": "match", "length": 3,
                                                        "rated": True})  # fmt: skip
                assert (rated.status, rated.body["error"]) == (403, code), rated.body
                chat = await said(bob_ws, f"after the {kind}")
                if kind == "ban":
                    assert isinstance(chat, m.Reject) and chat.message.startswith("banned"), chat
                else:
                    assert isinstance(chat, m.Chat), chat
                latest = await mia.locator(".audit-log li").first.inner_text()
                assert f"mia_m {word} bob_m" in latest, latest
                await mia.locator(".evidence textarea[name=reason]").fill("served")
                await mia.click(f".evidence button.lift-{kind}")
                await mia.locator(".evidence .no-sanction").wait_for()
                rated = await bob.post("/api/matches", {"mode": "match", "length": 3,
                                                        "rated": True})  # fmt: skip
                assert rated.status == 201, rated.body
            await mia.screenshot(path=SCREENSHOTS / "moderation-lifted-360.png", full_page=True)

            # The profile report is dismissed with a reason: the queue is empty.
            rest = mia.locator(".mod-queue .report-item")
            await rest.locator("input[name=dismiss-reason]").fill("covered by the mute")
            await rest.locator("button.dismiss").click()
            await mia.locator(".mod-queue .empty-queue").wait_for()
            await mia.screenshot(path=SCREENSHOTS / "moderation-audit-360.png", full_page=True)

            # The same page on a desktop; Ann, no moderator, is told so.
            desk = await net.new(DESKTOP, who="mia-desk")
            await desk.context.add_cookies(await mia.context.cookies())
            await desk.goto(f"{base}/moderation")
            await desk.locator(".audit-log li").nth(2).wait_for()
            await no_overflow(desk, DESKTOP["width"])
            await desk.screenshot(path=SCREENSHOTS / "moderation-1440x900.png", full_page=True)
            net.tolerate_network_errors = True  # the page's 403, which it words
            await ann.goto(f"{base}/moderation")
            await ann.locator(".not-moderator").wait_for()
        finally:
            await bob_ws.close()
