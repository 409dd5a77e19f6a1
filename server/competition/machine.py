"""The tournament machine: ``apply(state, command, now)`` -> the next state and its effects.

Pure: no I/O, no clock reads (``now`` is server time in ms, passed in), no randomness (match
ids are derived from the tournament's: :func:`server.competition.effects.match_id`). The shell
loads a state, applies one command, stores the result with a compare-and-set on ``version``,
and only then carries the effects out. Every command first settles what is due by ``now`` (the
start, no-show deadlines, the next Swiss round, the end of an arena), then does what it asks,
then settles again (a full field starts, a finished match lets the next one be paired).

Idempotent under at-least-once delivery: a result for a pairing already decided, a second
join, a repeated withdrawal or connection change nothing (:class:`Unchanged`), so each result
counts once. Refusals raise :class:`~server.competition.errors.Refused` and change nothing.

>>> from engine.match import MatchOptions
>>> config = Config(Kind.KNOCKOUT, MatchOptions.match(3), max_players=4)
>>> state = create("t1", config, "ann", now=0)
>>> for name, rating in [("ann", 1600), ("bob", 1500), ("cat", 1700)]:
...     state = apply(state, Join(name, name.title(), rating), now=1).state
>>> step = apply(state, Join("dan", "Dan", 1400), now=2)      # full: it starts
>>> step.state.phase.value, [type(e).__name__ for e in step.effects]
('running', ['Started', 'StartRound', 'Pair', 'Pair'])
>>> [(e.players, e.board) for e in step.effects[2:]]
[(('cat', 'dan'), 1), (('ann', 'bob'), 2)]
>>> final = step.effects[2].match
>>> apply(step.state, MatchFinished(final, winner=0, score=(3, 1)), now=9).state.players[2].points
1
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from server.competition import arena, knockout, swiss
from server.competition.commands import Command, Connected, Join, MatchFinished, Tick, Withdraw
from server.competition.effects import (
    Bye,
    Effect,
    Finish,
    Forfeit,
    Pair,
    RoundOver,
    Started,
    StartRound,
    Withdrawn,
    match_id,
)
from server.competition.errors import Code, Refused
from server.competition.scoring import (
    RESULT_VALUE,
    arena_order,
    arena_points,
    on_streak,
    standings,
    swiss_order,
)
from server.competition.state import (
    MAX_NAME,
    MAX_NO_SHOWS,
    PLAYERS,
    Absence,
    Config,
    Game,
    How,
    Kind,
    Outcome,
    Pairing,
    Phase,
    Player,
    TournamentState,
    check_config,
    check_id,
    is_rating,
)

GAME_REASONS = frozenset({"bear_off", "drop", "resign", "forfeit"})


@dataclass(frozen=True, slots=True)
class Accepted:
    state: TournamentState
    effects: tuple[Effect, ...]


@dataclass(frozen=True, slots=True)
class Unchanged:
    """Nothing to do: the command was applied before (a result already counted, a player
    already in) or nothing is due. Nothing to store."""

    reason: str


def create(tournament_id: str, config: Config, creator: str, now: int) -> TournamentState:
    """A new tournament, open for players (refused with ``bad_config`` or ``bad_field``)."""
    check_id(tournament_id, "the tournament's id")
    check_id(creator, "the creator")
    check_config(config, now)
    return TournamentState(tournament_id, config, creator, now)


def apply(state: TournamentState, command: Command, now: int) -> Accepted | Unchanged:
    """Apply ``command`` at server time ``now``; raises :class:`Refused` when refused."""
    if type(now) is not int:
        raise Refused(Code.BAD_FIELD, "now is a server time in whole milliseconds")
    handler = _HANDLERS.get(type(command))
    if handler is None:
        raise Refused(Code.UNKNOWN_COMMAND, f"no such command {type(command).__name__}")
    tx = _Tx(state, now)
    _settle(tx)
    handler(tx, command)
    _settle(tx)
    return tx.finish()


def next_due(state: TournamentState) -> int | None:
    """The first server time at which a :class:`Tick` would change something (None: only
    commands will): the start (or a "when full" tournament's expiry), a no-show deadline, the
    next Swiss round, the end of an arena, or two waiting arena players allowed to meet
    again."""
    config = state.config
    if state.phase is Phase.FINISHED:
        return None
    if state.phase is Phase.OPEN:
        return config.start_at if config.start_at is not None else state.created + config.open_ms
    times = [
        p.deadline
        for p in state.pairings
        if p.outcome is None and p.deadline is not None and not all(p.connected)
    ]
    if state.next_round_at is not None:
        times.append(state.next_round_at)
    end = state.arena_end
    if end is not None:
        times.append(end)
        again = arena.unblocked_at(_waiters(state.players), config.repeat_wait_ms)
        if again is not None and again < end - config.cutoff_ms:
            times.append(again)
    return min(times, default=None)


# ---------------------------------------------------------------- the transaction


class _Tx:
    """One transition in the making: working copies of the players and pairings, the other
    fields changed, the effects so far."""

    def __init__(self, state: TournamentState, now: int) -> None:
        self.before = state
        self.now = now
        self.config = state.config
        self.players = list(state.players)
        self.index = {p.id: i for i, p in enumerate(self.players)}
        self.pairings = list(state.pairings)
        self.by_match = {p.match: i for i, p in enumerate(self.pairings) if p.match is not None}
        self.fields: dict[str, Any] = {}
        self.effects: list[Effect] = []
        self.changed = False
        self.reason = "nothing to do"

    def get(self, name: str) -> Any:
        return self.fields[name] if name in self.fields else getattr(self.before, name)

    def set(self, **fields: Any) -> None:
        self.fields.update(fields)
        self.changed = True

    def emit(self, effect: Effect) -> None:
        self.effects.append(effect)

    def player(self, player_id: str | None) -> Player | None:
        i = self.index.get(player_id) if player_id is not None else None
        return self.players[i] if i is not None else None

    def put_player(self, player: Player) -> None:
        self.players[self.index[player.id]] = player
        self.changed = True

    def add_player(self, player: Player) -> None:
        self.index[player.id] = len(self.players)
        self.players.append(player)
        self.changed = True

    def remove_player(self, player_id: str) -> None:
        self.players = [p for p in self.players if p.id != player_id]
        self.index = {p.id: i for i, p in enumerate(self.players)}
        self.changed = True

    def add_pairing(self, pairing: Pairing) -> int:
        self.pairings.append(pairing)
        if pairing.match is not None:
            self.by_match[pairing.match] = len(self.pairings) - 1
        self.changed = True
        return len(self.pairings) - 1

    def put_pairing(self, i: int, pairing: Pairing) -> None:
        self.pairings[i] = pairing
        self.changed = True

    def view(self) -> TournamentState:
        """The state as it stands in the transaction."""
        return replace(
            self.before, players=tuple(self.players), pairings=tuple(self.pairings), **self.fields
        )

    def finish(self) -> Accepted | Unchanged:
        if not self.changed and not self.effects:
            return Unchanged(self.reason)
        state = replace(self.view(), version=self.before.version + 1)
        return Accepted(state, tuple(self.effects))


# ---------------------------------------------------------------- handlers


def _join(tx: _Tx, cmd: Join) -> None:
    check_id(cmd.player, "player")
    if not (isinstance(cmd.name, str) and 1 <= len(cmd.name) <= MAX_NAME) or not (
        cmd.name.isprintable()
    ):
        raise Refused(Code.BAD_FIELD, f"a player's name is 1..{MAX_NAME} printable characters")
    if not is_rating(cmd.rating):
        raise Refused(Code.BAD_FIELD, "a rating is a number 0..10000")
    phase, kind = tx.get("phase"), tx.config.kind
    if phase is Phase.FINISHED:
        raise Refused(Code.FINISHED, "the tournament is over")
    known = tx.player(cmd.player)
    if known is not None and known.active:
        tx.reason = "already in"
        return
    if phase is Phase.RUNNING and kind is not Kind.ARENA:
        raise Refused(Code.STARTED, "the tournament has started")
    if sum(p.active for p in tx.players) >= tx.config.max_players:
        raise Refused(Code.FULL, f"the tournament has {tx.config.max_players} players already")
    if known is not None:
        # Back in the arena: points kept, streak and no-shows forgotten.
        tx.put_player(
            replace(known, withdrawn=Absence.NONE, no_shows=0, streak=0, free_since=tx.now)
        )
        return
    entry = tx.get("entries") + 1
    tx.set(entries=entry)
    free = tx.now if phase is Phase.RUNNING else None
    rating = float(cmd.rating)
    tx.add_player(Player(cmd.player, cmd.name, rating, entry, tx.now, free_since=free))


def _withdraw(tx: _Tx, cmd: Withdraw) -> None:
    check_id(cmd.player, "player")
    player = tx.player(cmd.player)
    if player is None:
        raise Refused(Code.NOT_A_PLAYER, f"{cmd.player} is not in this tournament")
    phase = tx.get("phase")
    if phase is Phase.FINISHED:
        raise Refused(Code.FINISHED, "the tournament is over")
    if phase is Phase.OPEN:
        tx.remove_player(player.id)
    elif not player.active:
        tx.reason = "already withdrawn"
    else:
        _withdraw_player(tx, player, Absence.ASKED)


def _connected(tx: _Tx, cmd: Connected) -> None:
    i = _pairing_of(tx, cmd.match)
    if cmd.seat not in (0, 1) or type(cmd.seat) is not int:
        raise Refused(Code.BAD_FIELD, "a seat is 0 or 1")
    pairing = tx.pairings[i]
    if pairing.decided or pairing.connected[cmd.seat] or tx.get("phase") is Phase.FINISHED:
        tx.reason = "nothing to do"
        return
    connected = (True, pairing.connected[1]) if cmd.seat == 0 else (pairing.connected[0], True)
    tx.put_pairing(i, replace(pairing, connected=connected))


def _match_finished(tx: _Tx, cmd: MatchFinished) -> None:
    i = _pairing_of(tx, cmd.match)
    _check_result(cmd)
    if tx.pairings[i].decided:
        tx.reason = "already counted"
        return
    if tx.get("phase") is Phase.FINISHED:
        tx.reason = "the tournament is over: the match does not count"
        return
    _decide(tx, i, cmd.winner, How.PLAYED, cmd.score, cmd.games)


def _tick(tx: _Tx, cmd: Tick) -> None:
    """Time passed: :func:`_settle` (before and after every command) did it all."""


_HANDLERS: dict[type, Any] = {
    Join: _join,
    Withdraw: _withdraw,
    Connected: _connected,
    MatchFinished: _match_finished,
    Tick: _tick,
}


def _pairing_of(tx: _Tx, match: str) -> int:
    i = tx.by_match.get(match) if isinstance(match, str) else None
    if i is None:
        raise Refused(Code.UNKNOWN_MATCH, f"no match {match!r} in this tournament")
    return i


def _check_result(cmd: MatchFinished) -> None:
    if cmd.winner not in (None, 0, 1) or type(cmd.winner) is bool:
        raise Refused(Code.BAD_FIELD, "the winner is seat 0, seat 1 or none")
    score = cmd.score
    if not (
        isinstance(score, tuple)
        and len(score) == 2
        and all(type(x) is int and x >= 0 for x in score)
    ):
        raise Refused(Code.BAD_FIELD, "the score is two whole numbers, 0 or more")
    for game in cmd.games:
        if not (
            isinstance(game, Game)
            and game.winner in (0, 1)
            and game.result in RESULT_VALUE
            and game.reason in GAME_REASONS
        ):
            message = f"a game is a winning seat, a result and a reason: {game}"
            raise Refused(Code.BAD_FIELD, message)


# ---------------------------------------------------------------- deciding pairings


def _decide(
    tx: _Tx,
    i: int,
    winner: int | None,
    how: How,
    score: tuple[int, int] = (0, 0),
    games: tuple[Game, ...] = (),
) -> None:
    """Record the outcome of pairing ``i`` and credit its players."""
    pairing = tx.pairings[i]
    seated = [tx.player(pid) for pid in pairing.players]
    if tx.config.kind is Kind.ARENA:
        streaks = (
            seated[0] is not None and on_streak(seated[0]),
            seated[1] is not None and on_streak(seated[1]),
        )
        awarded = arena_points(games, winner, how, streaks)
    else:
        awarded = (int(winner == 0), int(winner == 1))
    met = how in (How.PLAYED, How.NO_SHOW, How.WITHDREW)
    for seat, player in enumerate(seated):
        if player is None:
            continue
        won = winner == seat
        player = replace(
            player,
            points=player.points + awarded[seat],
            played=player.played + met,
            won=player.won + (won and met),
            byes=player.byes + (how is How.BYE),
        )
        if tx.config.kind is Kind.ARENA:
            free = tx.now if player.active else None
            player = replace(player, streak=player.streak + 1 if won else 0, free_since=free)
        tx.put_player(player)
    outcome = Outcome(winner, how, tx.now, score, tuple(games), awarded)
    tx.put_pairing(i, replace(pairing, outcome=outcome))


def _withdraw_player(tx: _Tx, player: Player, why: Absence) -> None:
    tx.put_player(replace(player, withdrawn=why, free_since=None))
    tx.emit(Withdrawn(player.id, why.value))
    i = _running(tx, player.id)
    if i is not None:
        pairing = tx.pairings[i]
        seat = pairing.players.index(player.id)
        _decide(tx, i, 1 - seat, How.WITHDREW)
        assert pairing.match is not None
        tx.emit(Forfeit(pairing.match, (seat,), How.WITHDREW.value))


def _running(tx: _Tx, player_id: str) -> int | None:
    """The index of the player's undecided match, if any (a player has at most one)."""
    for i in range(len(tx.pairings) - 1, -1, -1):
        pairing = tx.pairings[i]
        if pairing.outcome is None and pairing.match is not None and player_id in pairing.players:
            return i
    return None


def _no_shows(tx: _Tx) -> None:
    """Decide every match whose connection deadline has come with a seat not connected: that
    seat loses (both: nobody wins); a player's second no-show withdraws them."""
    for i, pairing in enumerate(tx.pairings):
        if pairing.outcome is not None or pairing.deadline is None or tx.now < pairing.deadline:
            continue
        absent = tuple(seat for seat in (0, 1) if not pairing.connected[seat])
        if not absent:
            continue
        assert pairing.match is not None
        _decide(tx, i, None if len(absent) == 2 else 1 - absent[0], How.NO_SHOW)
        tx.emit(Forfeit(pairing.match, absent, How.NO_SHOW.value))
        for seat in absent:
            player = tx.player(pairing.players[seat])
            assert player is not None
            player = replace(player, no_shows=player.no_shows + 1)
            tx.put_player(player)
            if player.active and player.no_shows >= MAX_NO_SHOWS:
                _withdraw_player(tx, player, Absence.NO_SHOWS)


# ---------------------------------------------------------------- settling what is due


def _settle(tx: _Tx) -> None:
    phase = tx.get("phase")
    if phase is Phase.OPEN:
        _maybe_start(tx)
        phase = tx.get("phase")
    if phase is not Phase.RUNNING:
        return
    kind = tx.config.kind
    if kind is Kind.ARENA:
        started = tx.get("started_at")
        end = started + tx.config.duration_ms
        if tx.now >= end:
            _finish(tx, "completed", at=end)  # at its hour, however late the tick
            return
    _no_shows(tx)
    if kind is Kind.KNOCKOUT:
        _knockout_progress(tx)
    elif kind is Kind.SWISS:
        _swiss_progress(tx)
    else:
        _arena_pair(tx)


def _maybe_start(tx: _Tx) -> None:
    config = tx.config
    active = sum(p.active for p in tx.players)
    if config.start_at is not None:
        if tx.now < config.start_at:
            return
        if active < PLAYERS[config.kind][0]:
            _finish(tx, "cancelled")
        else:
            _start(tx)
    elif active >= config.max_players:
        _start(tx)
    elif tx.now >= tx.before.created + config.open_ms:
        _finish(tx, "cancelled")


def _start(tx: _Tx) -> None:
    order = sorted(tx.players, key=lambda p: (-p.rating, p.entry))
    arena_now = tx.now if tx.config.kind is Kind.ARENA else None
    for seed, player in enumerate(order, 1):
        tx.put_player(replace(player, seed=seed, free_since=arena_now))
    tx.set(phase=Phase.RUNNING, started_at=tx.now)
    tx.emit(Started(tuple(p.id for p in order)))
    kind = tx.config.kind
    if kind is Kind.KNOCKOUT:
        for board, (x, y) in enumerate(knockout.first_round(len(order)), 1):
            _form_cell(tx, 1, board, order[x - 1].id, order[y - 1].id if y else None)
    elif kind is Kind.SWISS:
        tx.set(next_round_at=tx.now)


def _finish(tx: _Tx, end: str, winner: str | None = None, at: int | None = None) -> None:
    tx.set(phase=Phase.FINISHED, finished_at=tx.now if at is None else at, end=end)
    table = standings(tx.view())
    if end != "cancelled" and tx.config.kind is not Kind.KNOCKOUT and table:
        winner = table[0].player
    tx.set(winner=winner)
    tx.emit(Finish(end, winner, table))


def _pair(tx: _Tx, round: int, board: int, a: str, b: str) -> None:
    match = match_id(tx.before.id, round, board)
    deadline = tx.now + tx.config.no_show_ms
    tx.add_pairing(Pairing(round, board, (a, b), match, tx.now, deadline))
    tx.emit(Pair(match, round, board, (a, b), deadline))


# ---------------------------------------------------------------- knockout


def _form_cell(tx: _Tx, round: int, board: int, x: str | None, y: str | None) -> None:
    """Round ``round``'s board ``board`` between ``x`` and ``y`` (None: nobody): a match, or a
    bye or walkover for the one who is there, or nobody through."""
    if round > tx.get("round"):
        tx.set(round=round)
        tx.emit(StartRound(round))
    px, py = tx.player(x), tx.player(y)
    here = [p is not None and p.active for p in (px, py)]
    if all(here):
        assert x is not None and y is not None
        _pair(tx, round, board, x, y)
        return
    i = tx.add_pairing(Pairing(round, board, (x, y), None, tx.now))
    if not any(here):
        _decide(tx, i, None, How.EMPTY)
        return
    seat = 0 if here[0] else 1
    other = (x, y)[1 - seat]
    how = How.BYE if round == 1 and other is None else How.WALKOVER
    _decide(tx, i, seat, how)
    winner = (x, y)[seat]
    assert winner is not None
    tx.emit(Bye(round, winner, how.value))


def _knockout_progress(tx: _Tx) -> None:
    total = knockout.rounds(len(tx.players))
    cells = {(p.round, p.board): p for p in tx.pairings}
    for r in range(1, total):
        for b in range(1, 2 ** (total - r) + 1, 2):
            upper, lower = cells.get((r, b)), cells.get((r, b + 1))
            parent = (r + 1, (b + 1) // 2)
            if parent in cells or upper is None or lower is None:
                continue
            if upper.outcome is None or lower.outcome is None:
                continue
            _form_cell(tx, *parent, _winner(upper), _winner(lower))
            cells[parent] = tx.pairings[-1]
    final = cells.get((total, 1))
    if final is not None and final.outcome is not None:
        _finish(tx, "completed", _winner(final))


def _winner(pairing: Pairing) -> str | None:
    assert pairing.outcome is not None
    seat = pairing.outcome.winner
    return pairing.players[seat] if seat is not None else None


# ---------------------------------------------------------------- Swiss


def _swiss_progress(tx: _Tx) -> None:
    r = tx.get("round")
    if r and tx.get("next_round_at") is None:
        if any(p.outcome is None for p in tx.pairings if p.round == r):
            return
        tx.emit(RoundOver(r, standings(tx.view())))
        if r >= tx.config.rounds:
            _finish(tx, "completed")
            return
        tx.set(next_round_at=tx.now + tx.config.break_ms)
    due = tx.get("next_round_at")
    if due is not None and tx.now >= due:
        _swiss_pair(tx, r + 1)


def _swiss_pair(tx: _Tx, r: int) -> None:
    ranked = sorted((p for p in tx.players if p.active), key=swiss_order)
    met = {frozenset(p.players) for p in tx.pairings if None not in p.players}
    had_bye = {p.id for p in tx.players if p.byes}
    scores = {p.id: p.points for p in ranked}
    found = swiss.pair_round([p.id for p in ranked], scores, met, had_bye)
    if found is None:
        _finish(tx, "exhausted")
        return
    pairs, bye = found
    tx.set(round=r, next_round_at=None)
    tx.emit(StartRound(r))
    for board, (a, b) in enumerate(pairs, 1):
        _pair(tx, r, board, a, b)
    if bye is not None:
        i = tx.add_pairing(Pairing(r, len(pairs) + 1, (bye, None), None, tx.now))
        _decide(tx, i, 0, How.BYE)
        tx.emit(Bye(r, bye, How.BYE.value))


# ---------------------------------------------------------------- arena


def _waiters(players: tuple[Player, ...] | list[Player]) -> list[arena.Waiter]:
    ranked = sorted((p for p in players if p.active), key=arena_order)
    return [
        arena.Waiter(p.id, rank, p.points, p.free_since, p.last)
        for rank, p in enumerate(ranked)
        if p.free_since is not None
    ]


def _arena_pair(tx: _Tx) -> None:
    started = tx.get("started_at")
    if tx.now >= started + tx.config.duration_ms - tx.config.cutoff_ms:
        return
    for a, b in arena.pair_waiting(_waiters(tx.players), tx.now, tx.config.repeat_wait_ms):
        board = tx.get("boards") + 1
        tx.set(boards=board)
        _pair(tx, 0, board, a, b)
        for me, other in ((a, b), (b, a)):
            player = tx.player(me)
            assert player is not None
            tx.put_player(replace(player, free_since=None, last=other))
