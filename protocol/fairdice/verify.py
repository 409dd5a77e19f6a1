"""The transcript verifier: every commitment, link, roll, roll-off step and (optionally) play.

:func:`verify_transcript` returns a :class:`Verdict` or raises :class:`TranscriptError` naming
the first fault precisely (``"roll 7: seat 1 reveal does not hash to its previous link"``,
``"roll 12: recorded dice 5-3 but derived 5-2"``). The checks run in a fixed order — structure,
commitments, then roll by roll (index, links, dice, roll-off and turn order), then event order,
actions, result, and last the replay of the plays through the rules engine — so that two
implementations report the same first fault.

Variants (the transcript's ``variant``, protocol version 5): in the backgammon family the
deciding roll-off roll is the first play, as above. In a Greek game (portes, plakoto, fevga:
opening ``reroll``) the roll-off only decides who starts: the deciding roll-off roll is played
by nobody and the first turn roll is the roll-off winner's; a Greek game opened by the previous
game's winner (the transcript's ``opener``) has no roll-off at all: its first roll is the
opener's turn roll. The replay plays by the variant's rules and checks its endings (plakoto's
``mother`` win and ``mothers`` draw).

The Jacoby rule (the transcript's ``jacoby``, a money session's option): a game borne off as a
gammon or backgammon with the cube never turned (``result.cube`` 1) counts as a single, so the
replay requires multiplier 1 there; a transcript without the field is held to the final
position's full multiplier, as before the field existed.

Re-commitment indexing: a re-commitment with ``applies_from = k0`` carries ``s'[k0 - 1]`` of a
fresh chain built with the usual formula; from roll ``k0`` on, that seat's reveal for roll ``k``
is ``s'[k]`` and must hash (with index ``k``) to the seat's previous link, exactly as before.
The re-commitment just replaces the seat's previous link: verification never changes form.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from protocol.fairdice.chain import link_ok
from protocol.fairdice.commitments import MAX_RECOMMITMENTS
from protocol.fairdice.dice import derive_dice
from protocol.fairdice.encoding import GameId
from protocol.fairdice.errors import Problem, TranscriptError
from protocol.fairdice.rolloff import RollKind, rolloff_winner, turn_roller
from protocol.fairdice.schema import parse_transcript
from protocol.fairdice.transcript import Action, Recommitment, Result, ResultReason, Transcript


@dataclass(frozen=True, slots=True)
class Verdict:
    """A transcript that verified, and what was checked."""

    game: GameId
    rolls: int
    rolloff_rolls: int
    first_mover: int | None
    recommitments: int
    actions: int
    plays_replayed: int | None  # None when the replay was not asked for
    result: Result

    def summary(self) -> str:
        """One line for people."""
        first = f", seat {self.first_mover} moved first" if self.first_mover is not None else ""
        plays = (
            f", {self.plays_replayed} plays replayed legal"
            if self.plays_replayed is not None
            else ", plays not replayed"
        )
        r = self.result
        won = (
            "drawn"
            if r.winner is None
            else f"seat {r.winner} won {_count(r.points, 'point')}"
        )
        return (
            f"verified: match {self.game.match_id.hex()} game {self.game.game_no}: "
            f"{_count(self.rolls, 'roll')} ({self.rolloff_rolls} roll-off{first}), "
            f"{_count(self.recommitments, 're-commitment')}, "
            f"{_count(self.actions, 'action')}{plays}; "
            f"{won} ({r.reason.value})"
        )


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def verify_json(data: str | bytes | dict[str, Any], *, replay: bool = True) -> Verdict:
    """Parse and verify a transcript (JSON text or parsed object)."""
    return verify_transcript(parse_transcript(data), replay=replay)


@dataclass(frozen=True, slots=True)
class _Played:
    """Who played each roll that is played (the deciding roll-off roll in the backgammon
    family, and every turn); the roll that decided who starts (0: an opener, no roll-off)."""

    first_mover: int | None
    rolloff_rolls: int
    movers: dict[int, int]  # roll k -> seat that plays it
    decided_at: int | None = None
    reroll: bool = False


def _has_cube(t: Transcript) -> bool:
    from engine.variants import variant  # noqa: PLC0415 (the engine, on demand)

    return variant(t.variant).cube


def _reroll(t: Transcript) -> bool:
    """Whether the roll-off winner rolls again for the first play (the Greek games)."""
    from engine.rules import Opening  # noqa: PLC0415 (the engine, on demand)
    from engine.variants import variant  # noqa: PLC0415

    return variant(t.variant).opening is Opening.REROLL




def verify_transcript(t: Transcript, *, replay: bool = True) -> Verdict:
    """Check ``t`` completely; ``replay=False`` skips the rules-engine replay of the plays."""
    heads = _check_commitments(t)
    by_applies = _check_recommitment_limits(t)
    played = _check_rolls(t, heads, by_applies)
    _check_order(t)
    _check_actions(t, played)
    _check_result(t, heads, by_applies)
    plays = _replay(t, played) if replay else None
    return Verdict(
        game=t.game,
        rolls=len(t.rolls),
        rolloff_rolls=played.rolloff_rolls,
        first_mover=played.first_mover,
        recommitments=len(t.recommitments),
        actions=len(t.actions),
        plays_replayed=plays,
        result=t.result,
    )


def _check_commitments(t: Transcript) -> list[bytes]:
    for c in t.commitments:
        if not any(c.commitment):
            raise TranscriptError(
                Problem.COMMITMENT,
                f"seat {c.seat} commitment is all zero bytes",
                seat=c.seat,
                path=f"commitments[{c.seat}].commitment",
            )
    if t.commitments[0].commitment == t.commitments[1].commitment:
        raise TranscriptError(
            Problem.COMMITMENT,
            "both seats committed to the same value",
            path="commitments[1].commitment",
        )
    return [t.commitments[0].commitment, t.commitments[1].commitment]


def _check_recommitment_limits(t: Transcript) -> dict[int, list[tuple[int, Recommitment]]]:
    counts = [0, 0]
    by_applies: dict[int, list[tuple[int, Recommitment]]] = {}
    for i, r in enumerate(t.recommitments):
        counts[r.seat] += 1
        if counts[r.seat] > MAX_RECOMMITMENTS:
            raise TranscriptError(
                Problem.RECOMMITMENT,
                f"seat {r.seat} re-committed {counts[r.seat]} times"
                f" (at most {MAX_RECOMMITMENTS} per game)",
                seat=r.seat,
                path=f"recommitments[{i}]",
            )
        if r.applies_from > len(t.rolls) + 1:
            raise TranscriptError(
                Problem.RECOMMITMENT,
                f"recommitments[{i}] applies from roll {r.applies_from}"
                f" but the game has only {len(t.rolls)} rolls",
                seat=r.seat,
                path=f"recommitments[{i}].applies_from",
            )
        by_applies.setdefault(r.applies_from, []).append((i, r))
    return by_applies


def _apply_recommitments(
    k: int,
    heads: list[bytes],
    sources: list[str],
    by_applies: dict[int, list[tuple[int, Recommitment]]],
) -> None:
    for i, r in by_applies.get(k, ()):
        if not any(r.commitment):
            raise TranscriptError(
                Problem.COMMITMENT,
                f"seat {r.seat} re-commitment recommitments[{i}] is all zero bytes",
                k=k,
                seat=r.seat,
                path=f"recommitments[{i}].commitment",
            )
        if r.commitment == heads[1 - r.seat]:
            raise TranscriptError(
                Problem.COMMITMENT,
                f"seat {r.seat} re-commitment recommitments[{i}] equals"
                f" seat {1 - r.seat}'s current link",
                k=k,
                seat=r.seat,
                path=f"recommitments[{i}].commitment",
            )
        heads[r.seat] = r.commitment
        sources[r.seat] = f"its re-commitment (recommitments[{i}])"


def _check_rolls(
    t: Transcript, heads: list[bytes], by_applies: dict[int, list[tuple[int, Recommitment]]]
) -> _Played:
    sources = ["its commitment", "its commitment"]
    game = t.game
    reroll = _reroll(t)
    first_mover: int | None = t.opener
    decided_at: int | None = None if t.opener is None else 0
    rolloff_rolls = 0
    movers: dict[int, int] = {}
    for index, roll in enumerate(t.rolls):
        k = index + 1
        path = f"rolls[{index}]"
        if roll.k != k:
            raise TranscriptError(
                Problem.SEQUENCE,
                f"{path} has k {roll.k}, expected {k}: roll indexes must be 1, 2, 3, ...",
                path=f"{path}.k",
            )
        _apply_recommitments(k, heads, sources, by_applies)
        for seat in (0, 1):
            reveal = roll.reveals[seat]
            if not link_ok(game, seat, k, reveal, heads[seat]):
                raise TranscriptError(
                    Problem.LINK,
                    f"seat {seat} reveal does not hash to {sources[seat]}",
                    k=k,
                    seat=seat,
                    path=f"{path}.reveals[{seat}]",
                )
            heads[seat] = reveal
            sources[seat] = "its previous link"
        d1, d2 = derive_dice(game, k, roll.reveals[0], roll.reveals[1])
        if (roll.d1, roll.d2) != (d1, d2):
            raise TranscriptError(
                Problem.DICE,
                f"recorded dice {roll.d1}-{roll.d2} but derived {d1}-{d2}",
                k=k,
                path=f"{path}.d1",
            )
        if first_mover is None:
            if roll.kind is not RollKind.ROLLOFF:
                previous = f" (roll {k - 1} was a tie)" if k > 1 else ""
                raise TranscriptError(
                    Problem.ROLLOFF,
                    f"kind is '{roll.kind.value}' but the roll-off is not decided yet{previous}",
                    k=k,
                    path=f"{path}.kind",
                )
            if roll.roller is not None:
                raise TranscriptError(
                    Problem.ROLLOFF,
                    f"a roll-off roll has roller null, got seat {roll.roller}",
                    k=k,
                    path=f"{path}.roller",
                )
            rolloff_rolls += 1
            first_mover = rolloff_winner(d1, d2)
            if first_mover is not None:
                decided_at = k
                if not reroll:
                    movers[k] = first_mover
            continue
        if roll.kind is not RollKind.TURN:
            won = (
                f"seat {first_mover} opens this game, without one"
                if decided_at == 0
                else f"the roll-off was decided at roll {decided_at} (seat {first_mover} won)"
            )
            raise TranscriptError(
                Problem.ROLLOFF, f"kind is 'rolloff' but {won}", k=k, path=f"{path}.kind"
            )
        assert decided_at is not None
        expected = turn_roller(first_mover, k - decided_at - 1, reroll)
        if roll.roller != expected:
            after = (
                f"seat {first_mover} opened"
                if decided_at == 0
                else f"seat {first_mover} won the roll-off at roll {decided_at}"
            )
            raise TranscriptError(
                Problem.ROLLOFF,
                f"roller is {_seat_name(roll.roller)} but seat {expected} rolls"
                f" (turns alternate after {after})",
                k=k,
                seat=roll.roller,
                path=f"{path}.roller",
            )
        movers[k] = expected
    # Re-commitments made after the last roll still obey the commitment rules.
    _apply_recommitments(len(t.rolls) + 1, heads, sources, by_applies)
    return _Played(first_mover, rolloff_rolls, movers, decided_at, reroll)


def _seat_name(seat: int | None) -> str:
    return "null" if seat is None else f"seat {seat}"


def _check_order(t: Transcript) -> None:
    events: list[tuple[int, int, str]] = []  # (v, t, name)
    events += [(c.v, c.t, f"commitments[{i}]") for i, c in enumerate(t.commitments)]
    for name, items in (
        ("recommitments", t.recommitments),
        ("rolls", t.rolls),
        ("actions", t.actions),
    ):
        for i, item in enumerate(items):
            if i and item.v <= items[i - 1].v:
                raise TranscriptError(
                    Problem.ORDER,
                    f"{name}[{i}] has v {item.v}, not after {name}[{i - 1}] (v {items[i - 1].v})",
                    path=f"{name}[{i}].v",
                )
            events.append((item.v, item.t, f"{name}[{i}]"))
    events.append((t.result.v, t.result.t, "result"))
    events.sort()
    for (v0, t0, n0), (v1, t1, n1) in itertools.pairwise(events):
        if v0 == v1:
            raise TranscriptError(Problem.ORDER, f"{n0} and {n1} have the same v {v0}")
        if t1 < t0:
            raise TranscriptError(
                Problem.ORDER,
                f"time goes backwards: {n1} (v {v1}) has t {t1}, before {n0} (v {v0}, t {t0})",
                path=f"{n1}.t",
            )
    if events[-1][2] != "result":
        raise TranscriptError(
            Problem.ORDER,
            f"{events[-1][2]} (v {events[-1][0]}) comes after the result (v {t.result.v})",
        )
    last_commit = max(c.v for c in t.commitments)
    if t.rolls and t.rolls[0].v < last_commit:
        raise TranscriptError(
            Problem.ORDER,
            f"roll 1 (v {t.rolls[0].v}) comes before both commitments (v {last_commit})",
            k=1,
            path="rolls[0].v",
        )
    for i, r in enumerate(t.recommitments):
        lo = max(last_commit, t.rolls[r.applies_from - 2].v if r.applies_from > 1 else -1)
        hi = t.rolls[r.applies_from - 1].v if r.applies_from <= len(t.rolls) else None
        if r.v < lo or (hi is not None and r.v > hi):
            after = "the commitments" if lo == last_commit else f"roll {r.applies_from - 1}"
            before = f" and before roll {r.applies_from} (v {hi})" if hi is not None else ""
            raise TranscriptError(
                Problem.ORDER,
                f"recommitments[{i}] (v {r.v}) applies from roll {r.applies_from}, so it must"
                f" come after {after} (v {lo}){before}",
                seat=r.seat,
                path=f"recommitments[{i}].v",
            )


def _check_actions(t: Transcript, played: _Played) -> None:
    moved: dict[int, int] = {}
    revealed: dict[tuple[int, int], int] = {}
    for i, a in enumerate(t.actions):
        path = f"actions[{i}]"
        if a.type not in ("move", "roll", "reveal"):
            continue
        k = a.payload["k"]
        if a.type == "move":
            _check_move(t, played, a, path, moved)
            moved[k] = i
        elif a.type == "roll":
            _check_roll_action(t, played, a, path, k)
        else:
            _check_reveal_action(t, played, a, path, k, revealed)
            revealed[(k, a.seat or 0)] = i


def _check_move(
    t: Transcript, played: _Played, a: Action, path: str, moved: dict[int, int]
) -> None:
    k = a.payload["k"]
    if k > len(t.rolls):
        raise TranscriptError(
            Problem.ACTION, f"{path} is a move for roll {k}, which does not exist", path=path
        )
    if k not in played.movers:
        raise TranscriptError(
            Problem.ACTION,
            f"{path} is a move for a roll-off tie, which nobody plays",
            k=k,
            path=path,
        )
    mover = played.movers[k]
    if a.seat != mover:
        raise TranscriptError(
            Problem.ACTION,
            f"{path}: {_seat_name(a.seat)} moved but seat {mover} plays this roll",
            k=k,
            seat=a.seat,
            path=f"{path}.seat",
        )
    if k in moved:
        raise TranscriptError(
            Problem.ACTION,
            f"{path} is a second move for this roll (first: actions[{moved[k]}])",
            k=k,
            path=path,
        )
    after = t.rolls[k - 1].v
    before = t.rolls[k].v if k < len(t.rolls) else None
    if a.v < after or (before is not None and a.v > before):
        raise TranscriptError(
            Problem.ORDER,
            f"{path} (v {a.v}) is not between this roll (v {after}) and the next"
            f"{f' (v {before})' if before is not None else ''}",
            k=k,
            path=f"{path}.v",
        )


def _check_roll_action(t: Transcript, played: _Played, a: Action, path: str, k: int) -> None:
    """A ``roll`` action is the roller's ROLL for turn roll ``k`` (roll-off rolls start by
    themselves). Re-commitments for roll ``k`` must come before it (see ``docs/fairness.md``)."""
    if k > len(t.rolls) + 1:
        raise TranscriptError(
            Problem.ACTION, f"{path} asks for roll {k}, beyond the next roll", path=path
        )
    if k <= len(t.rolls):
        roll = t.rolls[k - 1]
        expected = roll.roller
        if roll.kind is not RollKind.TURN:
            raise TranscriptError(
                Problem.ACTION, f"{path} asks for a roll-off roll", k=k, path=path
            )
        if a.v > roll.v:
            raise TranscriptError(
                Problem.ORDER,
                f"{path} (v {a.v}) comes after the roll it asks for (v {roll.v})",
                k=k,
                path=f"{path}.v",
            )
    elif played.first_mover is None:
        raise TranscriptError(
            Problem.ACTION, f"{path} asks for a turn roll before the roll-off", k=k, path=path
        )
    else:
        assert played.decided_at is not None
        expected = turn_roller(played.first_mover, k - played.decided_at - 1, played.reroll)
    if a.seat != expected:
        raise TranscriptError(
            Problem.ACTION,
            f"{path}: {_seat_name(a.seat)} asked for the roll but seat {expected} rolls",
            k=k,
            seat=a.seat,
            path=f"{path}.seat",
        )
    if k > 1 and a.v < t.rolls[k - 2].v:
        raise TranscriptError(
            Problem.ORDER,
            f"{path} (v {a.v}) comes before the previous roll (v {t.rolls[k - 2].v})",
            k=k,
            path=f"{path}.v",
        )
    for i, r in enumerate(t.recommitments):
        if r.applies_from == k and r.v > a.v:
            raise TranscriptError(
                Problem.ORDER,
                f"recommitments[{i}] (v {r.v}) for roll {k} was made after the roller's"
                f" {path} (v {a.v}): a chain may not change once a roll has started",
                k=k,
                seat=r.seat,
                path=f"recommitments[{i}].v",
            )


def _check_reveal_action(
    t: Transcript,
    played: _Played,
    a: Action,
    path: str,
    k: int,
    revealed: dict[tuple[int, int], int],
) -> None:
    """A ``reveal`` action is a seat's reveal for roll ``k`` arriving before the roll was made:
    in the roll-off, or deposited ahead in a correspondence match (docs/fairness.md, section
    15). It must come after both commitments and before its roll; for a turn roll it is the
    roller's opponent's, after the previous roll; no re-commitment for roll ``k`` may follow it
    (a seat would pick its link knowing a link of the other that is held)."""
    seat = a.seat
    assert seat is not None  # the schema requires one
    if k > len(t.rolls) + 1:
        raise TranscriptError(
            Problem.ACTION, f"{path} reveals for roll {k}, beyond the next roll", path=path
        )
    if (k, seat) in revealed:
        raise TranscriptError(
            Problem.ACTION,
            f"{path} is a second reveal of seat {seat} for roll {k}"
            f" (first: actions[{revealed[(k, seat)]}])",
            k=k,
            seat=seat,
            path=path,
        )
    last_commit = max(c.v for c in t.commitments)
    if a.v < last_commit:
        raise TranscriptError(
            Problem.ORDER,
            f"{path} (v {a.v}) reveals for roll {k} before both commitments (v {last_commit})",
            k=k,
            seat=seat,
            path=f"{path}.v",
        )
    roller: int | None = None
    turn = False
    if k <= len(t.rolls):
        roll = t.rolls[k - 1]
        if a.v > roll.v:
            raise TranscriptError(
                Problem.ORDER,
                f"{path} (v {a.v}) comes after the roll it completes (v {roll.v})",
                k=k,
                seat=seat,
                path=f"{path}.v",
            )
        turn, roller = roll.kind is RollKind.TURN, roll.roller
    elif played.first_mover is not None:
        decided_at = min(played.movers)
        turn, roller = True, turn_roller(played.first_mover, k - decided_at - 1)
    if turn:
        if seat == roller:
            raise TranscriptError(
                Problem.ACTION,
                f"{path}: seat {seat} rolls roll {k}: its reveal comes with its roll",
                k=k,
                seat=seat,
                path=f"{path}.seat",
            )
        if k > 1 and a.v < t.rolls[k - 2].v:
            raise TranscriptError(
                Problem.ORDER,
                f"{path} (v {a.v}) comes before the previous roll (v {t.rolls[k - 2].v})",
                k=k,
                seat=seat,
                path=f"{path}.v",
            )
    for i, r in enumerate(t.recommitments):
        if r.applies_from == k and r.v > a.v:
            raise TranscriptError(
                Problem.ORDER,
                f"recommitments[{i}] (v {r.v}) for roll {k} was made after seat {seat}'s"
                f" reveal {path} (v {a.v}) was held: a chain may not change once a link of"
                " its roll is held",
                k=k,
                seat=r.seat,
                path=f"recommitments[{i}].v",
            )


def _check_result(
    t: Transcript, heads: list[bytes], by_applies: dict[int, list[tuple[int, Recommitment]]]
) -> None:
    r = t.result
    if r.points != r.multiplier * r.cube:
        raise TranscriptError(
            Problem.RESULT,
            f"result: points {r.points} is not multiplier {r.multiplier} x cube {r.cube}",
            path="result.points",
        )
    if (r.winner is None) != (r.reason is ResultReason.MOTHERS):
        raise TranscriptError(
            Problem.RESULT, "result: only a drawn game (mothers) has no winner", path="result"
        )
    if (r.cube != 1 or r.reason is ResultReason.DROP) and not _has_cube(t):
        raise TranscriptError(
            Problem.RESULT, f"result: {t.variant} has no cube (cube 1, no drop)", path="result"
        )
    if r.reason in (ResultReason.MOTHER, ResultReason.MOTHERS) and t.variant != "plakoto":
        raise TranscriptError(
            Problem.RESULT,
            f"result: '{r.reason.value}' ends only a plakoto game, not {t.variant}",
            path="result.reason",
        )
    if r.reason is ResultReason.DROP and r.multiplier != 1:
        raise TranscriptError(
            Problem.RESULT, "result: a dropped double scores multiplier 1", path="result"
        )
    if r.reason is not ResultReason.INVALID_REVEAL:
        if r.evidence is not None:
            raise TranscriptError(
                Problem.EVIDENCE,
                f"result: evidence given for a '{r.reason.value}' result",
                path="result.evidence",
            )
        return
    e = r.evidence
    if e is None:
        raise TranscriptError(
            Problem.EVIDENCE,
            "result: an invalid_reveal forfeit must keep the bad reveal as evidence",
            path="result.evidence",
        )
    k = len(t.rolls) + 1
    if e.k != k:
        raise TranscriptError(
            Problem.EVIDENCE,
            f"result.evidence is for roll {e.k} but the pending roll was {k}",
            path="result.evidence.k",
        )
    if r.winner is None or e.seat != 1 - r.winner:
        raise TranscriptError(
            Problem.EVIDENCE,
            f"result.evidence names seat {e.seat}, but the forfeiting seat is"
            f" {_seat_name(None if r.winner is None else 1 - r.winner)}",
            path="result.evidence.seat",
        )
    # heads already include the re-commitments applying from roll k (see _check_rolls).
    if link_ok(t.game, e.seat, k, e.reveal, heads[e.seat]):
        raise TranscriptError(
            Problem.EVIDENCE,
            f"seat {e.seat} evidence reveal does hash to its previous link: the forfeit was"
            " not justified",
            k=k,
            seat=e.seat,
            path="result.evidence.reveal",
        )


def _replay(t: Transcript, played: _Played) -> int:
    from protocol.fairdice.replay import replay_plays  # noqa: PLC0415 (the engine, on demand)

    moves = {a.payload["k"]: a for a in t.actions if a.type == "move"}
    sequence: Sequence = [(t.rolls[k - 1], seat) for k, seat in sorted(played.movers.items())]
    outcome = replay_plays(sequence, moves, t.variant)
    r = t.result
    finish = outcome.finish or "bear_off"
    if outcome.ended_at_roll is not None:
        said = "drawn" if r.winner is None else f"{_seat_name(r.winner)} won"
        if r.reason.value != finish or r.winner != outcome.bear_off_winner:
            happened = (
                f"seat {outcome.bear_off_winner} bore off all checkers"
                if finish == "bear_off"
                else f"the game ended by '{finish}'"
                + (f" for seat {outcome.bear_off_winner}" if outcome.bear_off_winner is not None
                   else "")
            )
            raise TranscriptError(
                Problem.RESULT,
                f"result: {happened} at roll {outcome.ended_at_roll}, but the result says"
                f" {said} by '{r.reason.value}'",
                path="result",
            )
        scores, why = _counted(t, outcome.bear_off_multiplier or 0)
        if r.multiplier != scores:
            raise TranscriptError(
                Problem.RESULT,
                f"result: multiplier {r.multiplier} but the final position scores {scores}{why}",
                path="result.multiplier",
            )
    elif r.reason in (ResultReason.BEAR_OFF, ResultReason.MOTHER, ResultReason.MOTHERS):
        raise TranscriptError(
            Problem.RESULT,
            f"result: '{r.reason.value}' but the replay reached no such ending"
            if r.reason is not ResultReason.BEAR_OFF
            else "result: 'bear_off' but nobody bore off all checkers in the replay",
            path="result.reason",
        )
    return outcome.plays


def _counted(t: Transcript, multiplier: int) -> tuple[int, str]:
    """What a game ended on the board with ``multiplier`` counts, and why when it is not that:
    under the Jacoby rule (the transcript's ``jacoby``) a gammon or backgammon counts as a
    single while the cube was never turned (``result.cube`` 1), by the engine's rule
    (:func:`engine.results.jacoby_applies`)."""
    from engine.results import ResultKind, jacoby_applies  # noqa: PLC0415 (the engine, on demand)

    if multiplier and jacoby_applies(
        ResultKind(multiplier), jacoby=t.jacoby, cube_turned=t.result.cube != 1
    ):
        kind = ResultKind(multiplier).word
        return 1, f" (a {kind} with the cube never turned: a single under the Jacoby rule)"
    return multiplier, ""
