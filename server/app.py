"""The Starlette application: routes, and the process-wide services started in its lifespan.

This is the one place where features are plugged in: the listeners of the match-event bus
(``server.match.bus``) are registered here, in the order they are told.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import socket
from collections.abc import AsyncIterator
from dataclasses import dataclass

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from protocol.codec import encode
from server.competition.effects import Pair
from server.competition.news import News
from server.competition.quick import QuickPairing
from server.competition.seek_pool import SeekPool
from server.competition.tournament_store import TournamentStore
from server.competition.tournaments import Tournaments
from server.match import tally
from server.match.bus import Bus, Committed, GameFinished, MatchFinished
from server.match.clock import ServerClock, sweep_deadlines
from server.match.gateway import Gateway
from server.match.history import read_log
from server.match.hub import Hub
from server.match.rematch import Rematches
from server.match.service import MatchService
from server.match.store import Store
from server.ops import durability, logs, metrics
from server.ops.redis_link import follow_primary
from server.ops.settings import Settings
from server.ops.tasks import cancel_all
from server.players.accounts import Accounts, Throttle
from server.players.accounts_store import AccountsStore
from server.players.challenges import Challenges
from server.players.chat import ChatRooms
from server.players.dice_ledger import DiceLedger
from server.players.farming import Rules
from server.players.friends import Friends
from server.players.games import MyGames
from server.players.mail import Mailer
from server.players.moderation_store import ModerationStore
from server.players.notice_hub import NoticeHub
from server.players.notices import Notices, tournament_round
from server.players.profiles import Players, seat_link
from server.players.results import Results
from server.players.top import TopBoards
from server.players.turn_notices import TurnNotices
from server.players.vacation import Vacations
from server.web import accounts as accounts_api
from server.web import (
    analyse,
    bots,
    challenges,
    exports,
    friends,
    games,
    hints,
    imports,
    lobby,
    moderation,
    notices,
    pace,
    pages,
    records,
    rollouts,
    seeks,
    skill,
    trainer,
    versions,
    websocket,
)
from server.web import tournaments as tournaments_api
from server.web.lane import SocketLane
from server.web.limits import Limits, LobbyLimits, sweep_open_matches
from server.web.origin import OriginCheck
from server.work import botmatch
from server.work.analysis_listener import Analysis

log = logs.get("app")

GC_THRESHOLDS = (10_000, 20, 10)
"""The collector's thresholds once the process is up (Python's defaults: 700, 10, 10)."""


@dataclass
class Services:
    """What every request handler may use; one set per process."""

    settings: Settings
    store: Store
    clock: ServerClock
    hub: Hub
    matches: MatchService
    rematches: Rematches
    gateway: Gateway


def services(request: Request) -> Services:
    return request.app.state.services


async def healthz(request: Request) -> JSONResponse:
    svc = services(request)
    redis_ok = await svc.store.ping()
    guard: durability.Guard = request.app.state.durability
    if redis_ok:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(guard.check(), 1.0)
    ok = redis_ok and guard.status != "unsafe"
    body = {
        "ok": ok,
        "redis": "ok" if redis_ok else "unreachable",
        "time": svc.clock.now(),
        "durability": guard.status,
        "persistence": guard.last.as_json() if guard.last else None,
    }
    return JSONResponse(body, status_code=200 if ok else 503)


def create_app(settings: Settings | None = None) -> Starlette:
    settings = settings or Settings.from_env()
    target = settings.redis_target()
    if target is None:
        raise RuntimeError("REDIS_URL is not set (fairgammon serve starts an embedded Redis)")
    logs.setup(settings.log_level)

    store = Store.connect(target, window=settings.commit_window_ms / 1000)
    clock = ServerClock(store)
    clock.address = f"{socket.gethostname()}:{settings.port}"
    hub = Hub(store, target)
    bus = Bus()
    matches = MatchService(store, hub, clock, encode, grace_ms=settings.lag_allowance_ms, bus=bus)
    # A rematch of a match against the computer is one too (the bot's level is carried over).
    rematches = Rematches(matches, labels=(botmatch.BOT_FIELD,))
    gateway = Gateway(settings, matches)
    matches.hold = gateway.crashes.holding  # a dead process's seat: its deadline waits for it
    limits = LobbyLimits(
        store,
        Limits(
            settings.create_burst,
            settings.create_per_minute,
            settings.open_per_creator,
            settings.open_match_seconds,
        ),
    )

    guard = durability.Guard(target, settings.durability)
    accounts_store = AccountsStore(store.redis)
    top = TopBoards(store.redis)  # the Top Gamer boards (server/players/top.py)
    # Reports, sanctions and their audit log (docs/moderation.md): chat, rated play and the
    # results obey them.
    moderation_store = ModerationStore(store.redis)
    results = Results(
        accounts_store,
        lambda m: matches.load(m, fresh=True),
        clock.now,
        top,
        held=moderation_store.rating_held,
        read_log=lambda m: read_log(store, m),
        rules=Rules(settings.rated_min_plays, settings.rated_pair_daily),
    )
    # The lifetime dice audit of each account (server/players/dice_ledger.py): every match of
    # its history counted once, the older ones backfilled when first read.
    dice = DiceLedger(
        accounts_store, lambda m: matches.load(m, fresh=True), lambda m: read_log(store, m)
    )
    throttle = Throttle(account_fails=settings.login_failures)
    accounts = Accounts(accounts_store, throttle)
    ChatRooms(  # it answers chat messages and hears chat lines through the connections
        store,
        matches,
        accounts,
        gateway.connections,
        settings.chat_burst,
        settings.chat_per_minute,
        moderation_store.sanctions,
    )
    my_games = MyGames(store)
    vacations = Vacations(
        accounts_store, matches, my_games, settings.day_ms, settings.vacation_days
    )
    players = Players(
        accounts,
        results,
        settings.leaderboard_experience,
        my_games,
        vacations,
        settings.games_per_account,
        moderation_store,
    )
    # Quick pairing (server/competition: the pool in Redis, the matches it arranges).
    news = News(store.redis, target)
    quick = QuickPairing(
        SeekPool(store.redis), matches, news, seat_link, gateway.presence.claimed
    )
    # Notifications (server/players/notices.py: stored, rate-limited, live on /ws/notices).
    notes = Notices(accounts_store.redis, publish=target.publish)
    notice_hub = NoticeHub(target)  # every notices socket of the process, on one pub/sub feed

    async def round_starting(tid: str, name: str, pair: Pair, refs: list[str | None]) -> None:
        """A tournament pairing's match is made: each signed-in player is told (#22)."""
        for ref in refs:
            if ref:
                key = ref.split(" ", 1)[0]
                await tournament_round(notes, key, tournaments.now(), name, pair.round, f"/t/{tid}")

    # Tournaments (server/competition: the machine's states in Redis, its effects carried out).
    tournaments = Tournaments(
        TournamentStore(store.redis),
        matches,
        seat_link,
        gateway.presence.claimed,
        placed=top.placed,
        per_account=settings.tournaments_per_account,
        round_starting=round_starting,
    )

    # The listeners of the match-event bus, told in this order (docs/architecture.md, "The
    # match-event bus"). Results: a finished match's ratings and histories, exactly once
    # (marked due before the commit, recorded after it, swept if that process dies).
    bus.before_finish("results", results.finishing)
    # Tournaments: a tournament match's result counted once (the same mark-and-sweep).
    bus.before_finish("tournaments", tournaments.finishing)
    # Dice: each account's lifetime dice audit counts a finished match once (the same).
    bus.before_finish("dice", dice.finishing)
    bus.on(Committed, "metrics", tally.committed)
    bus.on(GameFinished, "metrics", tally.game_finished)
    bus.on(MatchFinished, "metrics", tally.match_finished)
    bus.on(GameFinished, "analysis", Analysis(store.redis).game_finished)
    bus.on(MatchFinished, "results", results.finished)
    bus.on(MatchFinished, "tournaments", tournaments.finished)
    bus.on(MatchFinished, "games", my_games.match_finished)
    bus.on(MatchFinished, "dice", dice.finished)
    mailer = Mailer(accounts_store.redis, settings.smtp, settings.mail_from, settings.base_url)
    notes.listeners.append(mailer.noticed)
    follows = Friends(accounts_store, my_games)
    turn_notices = TurnNotices(store, notes, settings.base_url, follows)
    bus.on(Committed, "notices", turn_notices.committed)
    bus.on(MatchFinished, "notices", turn_notices.finished)
    # Engine-assisted play (docs/moderation.md): the accounts of a rated match judged again.
    watch = moderation.AssistWatch(
        accounts_store, moderation_store, clock.now, lambda m: read_log(store, m)
    )
    bus.on(MatchFinished, "assist", watch.finished)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        try:
            await guard.at_start()
        except durability.NotDurable as exc:
            log.critical(str(exc))
            await store.close()
            raise
        app.state.durability = guard
        with contextlib.suppress(Exception):
            await clock.beat()
        hub.start()
        app.state.services = Services(settings, store, clock, hub, matches, rematches, gateway)
        app.state.lobby_limits = limits

        async def cancel_unjoined(match_id: str) -> bool:
            return await matches.cancel_unjoined(match_id, limits.limits.open_ms)

        app.state.players = players
        app.state.quick = quick
        app.state.tournaments = tournaments
        app.state.friends = follows
        app.state.challenges = Challenges(store)
        app.state.notices = notes
        app.state.notice_hub = notice_hub
        app.state.mailer = mailer
        app.state.moderation = moderation_store
        app.state.dice = dice

        tasks = [
            asyncio.create_task(clock.run(), name="clock"),
            asyncio.create_task(sweep_deadlines(store, clock, matches.expire), name="sweeper"),
            asyncio.create_task(gateway.probe_forever(), name="probes"),
            asyncio.create_task(gateway.presence.sweep_gone(), name="presence"),
            asyncio.create_task(guard.run(), name="durability"),
            asyncio.create_task(
                sweep_open_matches(limits, clock.now, cancel_unjoined), name="open-matches"
            ),
            asyncio.create_task(results.sweep_forever(), name="results"),
            asyncio.create_task(dice.sweep_forever(), name="dice"),
            asyncio.create_task(quick.sweep_forever(), name="seeks"),
            asyncio.create_task(quick.listen_forever(), name="seek-news"),
            asyncio.create_task(tournaments.sweep_forever(), name="tournaments"),
            asyncio.create_task(vacations.sweep_forever(accounts), name="vacations"),
            asyncio.create_task(follow_primary(target, store.redis), name="primary"),
            asyncio.create_task(notice_hub.run(), name="notices"),
            asyncio.create_task(metrics.watch_loop(), name="loop-lag"),
        ]
        websocket.on_shutdown(gateway.drain)  # SIGTERM: the clients move, paced, then exit
        # The modules, tables and services made so far live as long as the process: out of the
        # collector's sight, so that its full passes only walk what connections and matches
        # make; and young passes less often (a restart's reconnect storm allocates fast).
        gc.collect()
        gc.freeze()
        gc.set_threshold(*GC_THRESHOLDS)
        metrics.watch_gc()  # the pauses that remain, on /metrics
        log.info(
            "server process ready",
            extra=logs.fields(port=settings.port, store=target.describe()),
        )
        try:
            yield
        finally:
            websocket.on_shutdown(None)
            await gateway.shutdown()
            await bus.drain()  # the listeners' pending work (analysis queued, results recorded)
            await cancel_all(tasks)  # one cancel() is not always enough: see server.ops.tasks
            with contextlib.suppress(Exception):
                await store.mark_stopped(clock.process)  # the restart's downtime will be credited
            await hub.stop()
            await notice_hub.close()
            await store.close()

    routes = [
        Route("/healthz", healthz),
        Route("/metrics", metrics.endpoint),
        *lobby.routes,
        *versions.routes,
        *bots.routes,
        *accounts_api.routes,
        *hints.routes,
        *pace.routes,
        *analyse.routes,
        *rollouts.routes,
        *imports.routes,
        *trainer.routes,
        *skill.routes,
        *exports.routes,
        *records.routes,
        *seeks.routes,
        *tournaments_api.routes,
        *games.routes,
        *friends.routes,
        *challenges.routes,
        *notices.routes,
        *moderation.routes,
        *pages.routes(settings.web_dist),
    ]
    app = Starlette(routes=routes, lifespan=lifespan)
    app.add_middleware(OriginCheck, allowed=settings.origins())
    app.add_middleware(SocketLane, path="/ws", endpoint=gateway.handle)  # the match socket
    return app
