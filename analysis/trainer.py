"""The trainer: a player's own mistakes as puzzles, graded against the analysis, coming back by
spaced repetition. Pure (time comes in as ``now``, in seconds).

**Puzzles** (:func:`puzzles_of`): every decision of ``seat`` in an analysed game whose error is at
least :data:`THRESHOLD` (0.040, the game analysis's *error*; blunders included): a checker play
(``kind`` ``play``: find the best play of the roll) or a cube decision (``kind`` ``cube``: double
or not, before the roll; take or pass, facing a double). In match play (longer than 1 point:
the cube of a 1-point match is dead), also **cube quizzes at the score met** (``quiz`` true):
every other cube decision of ``seat`` the analysis judged — a double, a take or a pass
however good, and a roll where doubling was right or close (the analysis's *close or actual*
decisions) — graded like the cube puzzles. A puzzle carries the position as gnubg IDs (the
Position ID before the decision seen by the player to decide, and the Match ID with the score,
the cube and the dice), so the analysis board can show and analyse it, the answer (``best``:
the Position ID after the best play, or the best cube action), what was played, and its
``id``: a digest of its game and turn, the same however often it is collected.

**Grading** (:func:`grade`): a play answer is the Position ID after the chosen play: right when
it is the analysis's best play; a cube answer is ``double``/``no_double`` or ``take``/``pass``:
right when it is the best action (``drop`` and ``pass`` are one answer).

**Repetition** (:class:`Progress`, :func:`answer`, :func:`due`): a puzzle comes back until it is
solved twice with no miss between: a wrong answer brings it back after :data:`AGAIN_S` and sets
its right answers to zero, a first right answer brings it back after :data:`LATER_S`, a second
retires it.
The queue (:func:`due`) is the puzzles due by ``now``, the longest due first, then new ones in
the order met (oldest game first). The streak counts right answers in a row; the puzzle rating
is an Elo rating against each puzzle's difficulty (:func:`difficulty`: 1500 plus 2500 per unit
of the error it punishes, capped at 2500), K = 24, starting at 1500.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from engine import match_id as match_ids
from engine import position_id as position_ids
from engine.match_id import MatchKey
from engine.turns import Turn, TurnKind

THRESHOLD = 0.040
AGAIN_S = 60
LATER_S = 24 * 3600
SOLVED = 2
START_RATING = 1500.0
K = 24.0
CUBE_ANSWERS = {"double": "double", "no_double": "no_double", "take": "take", "drop": "pass",
                "pass": "pass"}


@dataclass(frozen=True, slots=True)
class Puzzle:
    id: str
    kind: str  # "play" or "cube"
    position_id: str
    match_id: str
    dice: tuple[int, int] | None
    best: str  # Position ID after the best play, or the best cube action
    best_text: str
    played: str
    played_text: str
    error: float
    source: str  # where it comes from: "<match or import>/<game>/<turn>"
    quiz: bool = False  # a cube quiz at a match score met (not an error of the player's)

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.id, "kind": self.kind, "position_id": self.position_id,
                "match_id": self.match_id, "dice": list(self.dice) if self.dice else None,
                "best": self.best, "best_text": self.best_text, "played": self.played,
                "played_text": self.played_text, "error": round(self.error, 4),
                "source": self.source, "quiz": self.quiz, "state": state_of(self.match_id)}


def state_of(match_id: str) -> dict[str, Any]:
    """The match state of a puzzle for the page, from the side of the player who decides:
    ``length`` (0 money), ``score`` (theirs first), ``crawford``, ``cube`` and its ``owner``
    (``you``, ``opponent`` or None centred)."""
    key = match_ids.decode(match_id)
    me = key.turn
    owner = None if key.cube_owner is None else "you" if key.cube_owner == me else "opponent"
    return {"length": key.length, "score": [key.score[me], key.score[1 - me]],
            "crawford": key.crawford, "cube": key.cube, "owner": owner}


def _key(turn: Turn, length: int, score: tuple[int, int], crawford: bool,
         dice: tuple[int, int] | None, decider: int, doubled: bool) -> str:
    roller = turn.seat if not doubled else 1 - turn.seat
    return match_ids.encode(MatchKey(
        cube=turn.cube, cube_owner=turn.owner, dice_owner=roller, turn=decider,
        crawford=crawford, doubled=doubled, dice=dice or (0, 0), length=length, score=score))


def board_ids(turn: Turn, *, length: int, score: tuple[int, int],
              crawford: bool) -> tuple[str, str] | None:
    """The decision ``turn`` answers as the analysis board sets it up: gnubg's Position ID (seen
    by the player on roll) and Match ID (score, cube, dice, who decides) — the way a puzzle
    carries it. A play or a pass: before it, with its dice; a double: the cube decision before
    the roll; a take or a drop: the double made, its taker to decide. None for anything else
    (beavers, resignations, forfeits)."""
    if turn.action in (TurnKind.MOVE, TurnKind.PASS):
        dice = (max(turn.dice), min(turn.dice)) if turn.dice else None
        return (position_ids.encode(turn.before),
                _key(turn, length, score, crawford, dice, turn.seat, False))
    if turn.action is TurnKind.DOUBLE:
        return (position_ids.encode(turn.before),
                _key(turn, length, score, crawford, None, turn.seat, False))
    if turn.action in (TurnKind.TAKE, TurnKind.DROP):
        return (position_ids.encode(turn.before.swapped()),
                _key(turn, length, score, crawford, None, turn.seat, True))
    return None


def puzzles_of(source: str, turns: Sequence[Turn], report: Mapping[str, Any], seat: int, *,
               length: int, score: tuple[int, int], crawford: bool) -> list[Puzzle]:
    """The puzzles of ``seat``'s errors in one game: ``turns`` (:func:`engine.turns.game_turns`)
    and ``report`` (the stored JSON of its analysis, whose turns are the same turns); ``source``
    names the game (``<match>/<game>``)."""
    out: list[Puzzle] = []
    for index, (turn, row) in enumerate(zip(turns, report["turns"], strict=False)):
        if turn.seat != seat:
            continue
        ident = hashlib.sha256(f"{source}/{index}".encode()).hexdigest()[:20]
        lost, cube_lost = row.get("equity_lost") or 0.0, row.get("cube_lost") or 0.0
        if turn.action is TurnKind.MOVE and lost >= THRESHOLD and row.get("best"):
            dice = (max(turn.dice), min(turn.dice)) if turn.dice else None
            out.append(Puzzle(
                ident, "play", position_ids.encode(turn.before),
                _key(turn, length, score, crawford, dice, seat, False), dice, row["best"],
                row.get("best_text") or "", row.get("played") or "",
                row.get("played_text") or turn.text, lost, f"{source}/{index}"))
        elif turn.action is TurnKind.MOVE and cube_lost >= THRESHOLD:
            # Not doubling before this roll was the error: the decision before the roll.
            out.append(Puzzle(
                ident + "c", "cube", position_ids.encode(turn.before),
                _key(turn, length, score, crawford, None, seat, False), None, "double",
                "double", "no_double", "no double", cube_lost, f"{source}/{index}"))
        elif (length > 1 and turn.action is TurnKind.MOVE and row.get("best_action")
              in ("double", "no_double")):
            # A close cube decision before the roll, at a match score: a cube quiz.
            best = row["best_action"]
            out.append(Puzzle(
                ident + "q", "cube", position_ids.encode(turn.before),
                _key(turn, length, score, crawford, None, seat, False), None, best,
                best.replace("_", " "), "no_double", "no double", cube_lost,
                f"{source}/{index}", quiz=True))
        elif (turn.action in (TurnKind.DOUBLE, TurnKind.TAKE, TurnKind.DROP)
              and row.get("best_action") and (lost >= THRESHOLD or length > 1)):
            facing = turn.action is not TurnKind.DOUBLE
            played = {"double": "double", "take": "take", "drop": "pass"}[turn.action.value]
            best = CUBE_ANSWERS[row["best_action"]]
            roller_view = turn.before if not facing else turn.before.swapped()
            out.append(Puzzle(
                ident, "cube", position_ids.encode(roller_view),
                _key(turn, length, score, crawford, None, seat, facing), None, best,
                best.replace("_", " "), played, played.replace("_", " "), lost,
                f"{source}/{index}", quiz=lost < THRESHOLD))
    return out


def grade(puzzle: Puzzle, answer: str) -> bool:
    """Whether ``answer`` solves ``puzzle`` (module docstring)."""
    if puzzle.kind == "play":
        return answer == puzzle.best
    return CUBE_ANSWERS.get(answer) == puzzle.best


def difficulty(puzzle: Puzzle) -> float:
    """>>> difficulty(Puzzle("x", "play", "", "", None, "", "", "", "", 0.1, ""))
    1750.0
    """
    return min(2500.0, START_RATING + 2500.0 * puzzle.error)


@dataclass(frozen=True, slots=True)
class Entry:
    solves: int = 0
    attempts: int = 0
    due: float | None = None  # None: never answered (new)


@dataclass(frozen=True, slots=True)
class Progress:
    entries: Mapping[str, Entry] = field(default_factory=dict)
    streak: int = 0
    best_streak: int = 0
    rating: float = START_RATING
    answered: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {"entries": {k: {"solves": e.solves, "attempts": e.attempts, "due": e.due}
                            for k, e in self.entries.items()},
                "streak": self.streak, "best_streak": self.best_streak,
                "rating": self.rating, "answered": self.answered}

    @classmethod
    def of(cls, stored: Mapping[str, Any]) -> Progress:
        entries = {k: Entry(int(v["solves"]), int(v["attempts"]),
                            None if v["due"] is None else float(v["due"]))
                   for k, v in stored.get("entries", {}).items()}
        return cls(entries, int(stored.get("streak", 0)), int(stored.get("best_streak", 0)),
                   float(stored.get("rating", START_RATING)), int(stored.get("answered", 0)))


def answer(progress: Progress, puzzle: Puzzle, given: str, now: float) -> tuple[Progress, bool]:
    """``progress`` after answering ``puzzle`` with ``given`` at ``now``, and whether it was
    right."""
    right = grade(puzzle, given)
    entry = progress.entries.get(puzzle.id, Entry())
    if right:
        solves = entry.solves + 1
        entry = Entry(solves, entry.attempts + 1, now + LATER_S if solves < SOLVED else None)
    else:
        entry = Entry(0, entry.attempts + 1, now + AGAIN_S)
    expected = 1.0 / (1.0 + 10 ** ((difficulty(puzzle) - progress.rating) / 400.0))
    rating = progress.rating + K * ((1.0 if right else 0.0) - expected)
    streak = progress.streak + 1 if right else 0
    entries = {**progress.entries, puzzle.id: entry}
    return replace(progress, entries=entries, streak=streak,
                   best_streak=max(progress.best_streak, streak), rating=round(rating, 2),
                   answered=progress.answered + 1), right


def retired(progress: Progress, puzzle_id: str) -> bool:
    entry = progress.entries.get(puzzle_id)
    return entry is not None and entry.solves >= SOLVED


def due(progress: Progress, puzzles: Iterable[Puzzle], now: float) -> list[Puzzle]:
    """The puzzles to do now, in order (module docstring): due ones (longest due first), then
    new ones in the order given."""
    waiting, new = [], []
    for order, p in enumerate(puzzles):
        entry = progress.entries.get(p.id)
        if entry is None or entry.attempts == 0:
            new.append((order, p))
        elif entry.solves < SOLVED and entry.due is not None and entry.due <= now:
            waiting.append((entry.due, order, p))
    waiting.sort(key=lambda t: (t[0], t[1]))
    return [p for _, _, p in waiting] + [p for _, p in new]
