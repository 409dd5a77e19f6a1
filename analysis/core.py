"""The analysis of one game: its record in, a report out. Pure apart from the nets it is given
(no clock, no Redis, no files): :func:`analyse` walks the turns of :mod:`engine.turns` and asks
an :class:`analysis.equity.Evaluator` for equities. The method is in docs/analysis.md.

Units: every equity is the nets' cubeful equity per unit cube for the player concerned — in
money play the expected points won per point of cube, in match play bgsage's normalised match
equity (+1 = winning one cube's worth, −1 = losing it: EMG, "equivalent to money game"). An
error is the equity a decision gave away against the best decision, in those units (so 0.100 is
100 millipoints, mEMG). Luck is counted in points: the roll's equity gain times the cube value
at the time.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from analysis.equity import Evaluator, RollOutcome, resignation_equity
from analysis.game import GameInput
from brain.context import CubeContext, seat_context
from engine.notation import play_text
from engine.position_id import encode
from engine.turns import Turn, TurnKind

ERROR = 0.04
"""A decision losing at least this much (and less than :data:`BLUNDER`) is an error."""
BLUNDER = 0.08
"""A decision losing at least this much is a blunder."""
CLOSE_CUBE = 0.10
"""A roll where the player could double counts as a cube decision when doubling would have
cost less than this (or not doubling cost anything): clear no-doubles are not decisions."""
PR_SCALE = 500
"""PR (performance rating) = 500 × the mean error per decision: the scale players know from
eXtreme Gammon (0 is perfect play, under 5 world class, about 20 a casual player)."""


@dataclass(frozen=True, slots=True)
class TurnAnalysis:
    """One turn of the record, analysed. ``None`` where a figure does not apply."""

    index: int
    seat: int
    action: TurnKind
    dice: tuple[int, int] | None
    played: str | None  # Position ID after the play, seen by the mover
    best: str | None  # Position ID after the best play
    played_text: str | None
    best_text: str | None
    equity_lost: float | None  # the play's or the cube action's error (0 when best)
    best_action: str | None  # cube: "double", "no_double", "take", "drop"; resignations:
    # "resign" or "play_on" (the resigner), "accept" or "reject" (the answer)
    cube_lost: float | None  # before a play: the error of not doubling (when it was a decision)
    luck: float | None  # the roll's luck, points, for the roller
    equity: float | None  # seat 0's equity after the turn (per unit cube)
    forced: bool = False  # only one play (or none) was legal
    plays: int = 0  # legal plays of the roll

    @property
    def worst_error(self) -> float:
        return max(self.equity_lost or 0.0, self.cube_lost or 0.0)

    @property
    def mark(self) -> str | None:
        e = self.worst_error
        return "blunder" if e >= BLUNDER else "error" if e >= ERROR else None


CHECKER, CUBE, RESIGN = "checker", "cube", "resign"
"""The kinds of decision a player's report counts."""
RESIGNATION_TURNS = (TurnKind.RESIGN, TurnKind.ACCEPT, TurnKind.REJECT)


@dataclass(slots=True)
class PlayerReport:
    seat: int
    checker_decisions: int = 0
    cube_decisions: int = 0
    resign_decisions: int = 0
    total_error: float = 0.0
    cube_error: float = 0.0
    resign_error: float = 0.0
    errors: int = 0
    blunders: int = 0
    luck: float = 0.0
    rolls: int = 0
    result: float = 0.0

    @property
    def decisions(self) -> int:
        return self.checker_decisions + self.cube_decisions + self.resign_decisions

    @property
    def error_rate(self) -> float:
        """Mean error per decision, in millipoints (mEMG)."""
        return 1000.0 * self.total_error / self.decisions if self.decisions else 0.0

    @property
    def checker_error(self) -> float:
        return self.total_error - self.cube_error - self.resign_error

    @property
    def pr(self) -> float:
        return PR_SCALE * self.total_error / self.decisions if self.decisions else 0.0

    def count(self, error: float, kind: str) -> None:
        if kind == CUBE:
            self.cube_decisions += 1
            self.cube_error += error
        elif kind == RESIGN:
            self.resign_decisions += 1
            self.resign_error += error
        else:
            self.checker_decisions += 1
        self.total_error += error
        if error >= BLUNDER:
            self.blunders += 1
        elif error >= ERROR:
            self.errors += 1


@dataclass(slots=True)
class GameReport:
    level: str
    turns: list[TurnAnalysis] = field(default_factory=list)
    players: tuple[PlayerReport, PlayerReport] = field(
        default_factory=lambda: (PlayerReport(0), PlayerReport(1)))

    def luck_adjusted(self, seat: int) -> float:
        """The seat's result with both players' luck taken out (points)."""
        me, them = self.players[seat], self.players[1 - seat]
        return me.result - (me.luck - them.luck)

    def basis(self) -> Basis:
        """What a deeper analysis of the same game takes over from this report (its luck and
        cube figures, unrounded): see :func:`analyse`."""
        return Basis(self.level, tuple(
            TurnBasis(t.action, t.luck, t.cube_lost, t.best_action,
                      None if t.action in (TurnKind.MOVE, TurnKind.PASS) else t.equity_lost)
            for t in self.turns))


@dataclass(frozen=True, slots=True)
class TurnBasis:
    """One turn's figures that a deeper analysis takes over (:meth:`GameReport.basis`): those
    of its :class:`TurnAnalysis` that do not depend on how checker plays are judged."""

    action: TurnKind
    luck: float | None = None  # a roll's luck, points
    cube_lost: float | None = None  # before a roll: not doubling's error, if it was a decision
    best_action: str | None = None  # of that decision, of a cube action or a resignation's
    equity_lost: float | None = None  # a cube action's or a resignation's (or its answer's)
    # error (None on a roll: judged again)


@dataclass(frozen=True, slots=True)
class Basis:
    """The luck and cube figures of an analysis at ``level``, turn by turn, unrounded: what
    :func:`analyse` reuses instead of computing them again (docs/analysis.md, "Deeper when time
    allows")."""

    level: str
    turns: tuple[TurnBasis, ...]


def context_of(game: GameInput, seat: int, value: int, owner: int | None) -> CubeContext:
    """The cube and score seen by ``seat`` (no cube in play in a game without it: portes)."""
    context = seat_context(game.mode, seat, value=value, owner=owner, length=game.length,
                           score=game.score, crawford=game.crawford, jacoby=game.jacoby,
                           beavers=game.beavers)
    return context if game.cube else replace(context, cube_in_play=False)


def outcome_of(outcomes: list[RollOutcome], d1: int, d2: int) -> RollOutcome:
    """The outcome of the roll ``d1``-``d2`` (in either order)."""
    for o in outcomes:
        if (o.d1, o.d2) in ((d1, d2), (d2, d1)):
            return o
    raise ValueError(f"roll {d1}-{d2} is not among the outcomes")


def luck_of(outcomes: list[RollOutcome], d1: int, d2: int) -> float:
    """The equity of the roll that came minus the average over all rolls (per unit cube)."""
    total = sum(o.weight for o in outcomes)
    mean = sum(o.best_equity * o.weight for o in outcomes) / total
    return outcome_of(outcomes, d1, d2).best_equity - mean


def playing_on(turn: Turn, ctx: CubeContext, evaluator: Evaluator) -> float:
    """What the position of a resignation is worth to the resigner if the game goes on, per
    unit cube: after rolling (the dice it had to play), the best play of those dice; before
    rolling, the mean of the best plays of all 36 rolls, or doubling when the cube allows it
    and doubling is worth more (against the opponent's right answer)."""
    if turn.rolled is not None:
        return evaluator.roll(turn.before, *the_roll(*turn.rolled), ctx).best_equity
    outcomes = evaluator.all_rolls(turn.before, ctx)
    total = sum(o.weight for o in outcomes)
    rolling = sum(o.best_equity * o.weight for o in outcomes) / total
    if not ctx.may_double:
        return rolling
    advice = evaluator.cube(turn.before, ctx)
    return max(rolling, min(advice.double_take, advice.double_pass))


def the_roll(d1: int, d2: int) -> tuple[int, int, int]:
    """The roll ``d1``-``d2`` as :data:`analysis.equity.ROLLS` has it: (high, low, weight)."""
    high, low = max(d1, d2), min(d1, d2)
    return high, low, 1 if high == low else 2


def analyse(game: GameInput, evaluator: Evaluator,
            progress: Callable[[int, int], None] | None = None,
            basis: Basis | None = None) -> GameReport:
    """The analysis of ``game`` (see the module docstring for the units).

    With ``basis`` (:meth:`GameReport.basis` of an analysis of the same game at
    ``evaluator.base_level``) the luck and the cube figures are taken from it instead of being
    computed again, and of each roll only the roll that came is scored, to judge its play: the
    report is the same as without it, at a fraction of the cost."""
    if basis is not None:
        if basis.level != evaluator.base_level:
            raise ValueError(f"a {basis.level} basis for a {evaluator.level} analysis whose "
                             f"luck and cube are at {evaluator.base_level}")
        if len(basis.turns) != len(game.turns):
            raise ValueError(f"a basis of {len(basis.turns)} turns for {len(game.turns)}")
    report = GameReport(evaluator.level)
    rolls_total = sum(1 for t in game.turns if t.action in (TurnKind.MOVE, TurnKind.PASS))
    done = 0
    opening = True
    equity0: float | None = 0.0
    pending_double: tuple[Turn, float, float] | None = None  # the double, its DT and DP
    offered: tuple[float, float] | None = None  # a resignation's worth and playing on's, resigner
    for i, turn in enumerate(game.turns):
        seat = turn.seat
        ctx = context_of(game, seat, turn.cube, turn.owner)
        row: dict = {
            "index": i, "seat": seat, "action": turn.action, "dice": turn.dice, "played": None,
            "best": None, "played_text": None, "best_text": None, "equity_lost": None,
            "best_action": None, "cube_lost": None, "luck": None, "equity": equity0,
        }
        player = report.players[seat]
        taken = None if basis is None else basis.turns[i]
        if taken is not None and taken.action is not turn.action:
            raise ValueError(f"turn {i}: the basis has a {taken.action.value}, the game a "
                             f"{turn.action.value}")
        if turn.action in (TurnKind.MOVE, TurnKind.PASS) and turn.dice is not None:
            d1, d2 = turn.dice
            # The cube decision before the roll: the player rolled instead of doubling.
            if taken is not None:
                if taken.cube_lost is not None:
                    row["cube_lost"] = taken.cube_lost
                    row["best_action"] = taken.best_action
                    player.count(taken.cube_lost, CUBE)
            elif not opening and ctx.may_double and (i == 0 or game.turns[i - 1].action not in (
                    TurnKind.TAKE, TurnKind.DROP, TurnKind.BEAVER, TurnKind.DOUBLE)):
                advice = evaluator.cube(turn.before, ctx)
                doubled = min(advice.double_take, advice.double_pass)
                lost = max(0.0, doubled - advice.no_double)
                if lost > 0.0 or advice.no_double - doubled < CLOSE_CUBE:
                    row["cube_lost"] = lost
                    row["best_action"] = "double" if lost > 0.0 else "no_double"
                    player.count(lost, CUBE)
            if taken is not None:
                if taken.luck is None:
                    raise ValueError(f"turn {i}: the basis has no luck for the roll")
                row["luck"] = taken.luck
                # Only the roll that came: its plays, to judge the play made.
                mine = evaluator.roll(turn.before, *the_roll(d1, d2), ctx)
            else:
                outcomes = evaluator.all_rolls(turn.before, ctx, opening=opening)
                row["luck"] = luck_of(outcomes, d1, d2) * turn.cube
                mine = outcome_of(outcomes, d1, d2)
            player.luck += row["luck"]
            player.rolls += 1
            row["plays"] = len(mine.plays)
            if mine.plays:
                judged = evaluator.judge(turn.before, ctx, mine, turn.after)
                chosen = next((p for p in judged if p.play.position == turn.after), None)
                if chosen is None:
                    raise ValueError(f"turn {i}: the play is not among the legal plays")
                best = judged[0]
                lost = max(0.0, best.equity - chosen.equity)
                if lost == 0.0:
                    best = chosen  # a play as good as the best is the best (ties are not errors)
                row["played"] = encode(turn.after)
                row["best"] = encode(best.play.position)
                row["played_text"] = turn.text
                row["best_text"] = play_text(turn.before, best.play.moves)
                row["equity_lost"] = lost
                mover_equity = chosen.equity
                if len(mine.plays) > 1:
                    player.count(lost, CHECKER)
                else:
                    row["forced"] = True
            else:
                row["equity_lost"] = 0.0
                row["forced"] = True
                mover_equity = mine.best_equity
            equity0 = mover_equity if seat == 0 else -mover_equity
            row["equity"] = equity0
            opening = False
            done += 1
            if progress:
                progress(done, rolls_total)
        elif taken is not None:
            # A cube action (or anything else: then nothing is judged) as the basis has it.
            if taken.equity_lost is not None:
                row["equity_lost"] = taken.equity_lost
                row["best_action"] = taken.best_action
                player.count(taken.equity_lost,
                             RESIGN if turn.action in RESIGNATION_TURNS else CUBE)
        elif turn.action is TurnKind.DOUBLE:
            advice = evaluator.cube(turn.before, ctx)
            doubled = min(advice.double_take, advice.double_pass)
            lost = max(0.0, advice.no_double - doubled)
            row["equity_lost"] = lost
            row["best_action"] = "no_double" if lost > 0.0 else "double"
            player.count(lost, CUBE)
            pending_double = (turn, advice.double_take, advice.double_pass)
        elif turn.action in (TurnKind.TAKE, TurnKind.DROP, TurnKind.BEAVER) and pending_double:
            _, dt, dp = pending_double
            pending_double = None
            # The taker's equity is minus the doubler's: take gives -DT, drop -DP.
            took = turn.action is not TurnKind.DROP
            lost = max(0.0, (dt - dp) if took else (dp - dt))
            row["equity_lost"] = lost
            row["best_action"] = "take" if dt <= dp else "drop"
            player.count(lost, CUBE)
        elif turn.action is TurnKind.RESIGN and turn.value is not None:
            # Giving away more than the position is worth is an error of its size; offering
            # less than it is worth costs nothing (the opponent may refuse).
            worth = resignation_equity(turn.value, ctx)
            on = playing_on(turn, ctx, evaluator)
            lost = max(0.0, on - worth)
            row["equity_lost"] = lost
            row["best_action"] = "play_on" if lost > 0.0 else "resign"
            player.count(lost, RESIGN)
            offered = (worth, on)
        elif turn.action in (TurnKind.ACCEPT, TurnKind.REJECT) and offered:
            worth, on = offered
            offered = None
            # The answerer's equity is minus the resigner's: accepting gives -worth, playing
            # on -on.
            accepted = turn.action is TurnKind.ACCEPT
            lost = max(0.0, (worth - on) if accepted else (on - worth))
            row["equity_lost"] = lost
            row["best_action"] = "accept" if on >= worth else "reject"
            player.count(lost, RESIGN)
        report.turns.append(TurnAnalysis(**row))
    if game.result is not None:
        winner, points = game.result
        report.players[winner].result = float(points)
        report.players[1 - winner].result = -float(points)
    return report
