"""Legal plays: every distinct way to play a roll, fast.

:func:`legal_plays` returns one :class:`Play` per distinct resulting position. Each play's
``moves`` lists its checker moves from the highest from-point down (that order is always a legal
order, see below), and when several move lists reach the same position the lexicographically
largest is kept. Plays come sorted by ``moves``, largest first, so the output is deterministic.

>>> from engine.position import Position
>>> plays = legal_plays(Position.start(), 6, 5)
>>> len(plays)
7
>>> plays[0].moves, plays[0].position.pips()
(((24, 18), (18, 13)), (156, 167))
>>> [len(legal_plays(Position.start(), d, d)) for d in range(1, 7)]
[42, 75, 73, 52, 4, 11]
>>> legal_plays(Position.from_points({25: 2}, {p: 2 for p in range(1, 7)}), 6, 5)
()

How it is fast (pure Python; see docs/rules.md, "Move generation", for measurements):

* **Canonical order.** A play is a multiset of single-die steps. Moves only go down the board,
  blocks never change during a turn, and a step never makes another step illegal (own checkers
  never block; leaving a point or coming home can only enable a bear-off). So the steps sorted
  by from-point (highest first) are a legal order whenever any order is: every checker arriving
  on a point arrives before the steps that leave it, all moves into the home board come before
  the first bear-off, and an oversize bear-off from ``s`` that is legal in some order finds
  nothing above ``s`` in this one either. Each multiset is generated once, in this order,
  instead of once per permutation (up to 24 for a double).
* **Doubles need no de-duplication.** With a single die each square has one possible step, so
  the steps are the unique flow that turns the start board into the result: two different step
  multisets never reach the same position, and the canonical search yields every result once.
* **Two different dice** reach one position from two step multisets only when one checker moves
  ``a + b`` by either route (or, in the bear-off, two checkers leave by either die). The common
  case (at most one checker on the bar, no bear-off possible this turn) is therefore built as a
  product of precomputed
  legal single moves plus the one-checker combinations, with that one duplicate case tested
  directly; the rare cases run a small search with a dictionary keyed by the result.
* **Do/undo** on one scratch list of counts; result tuples, ``Position`` and ``Play`` objects
  are built only for distinct results, without re-validation (``Position.unchecked`` semantics),
  and the ``(from, to)`` pairs come from a table instead of being allocated per move.
* **Early exits**: a non-double whose dice can both be played never looks at single-die plays,
  a double that can play four steps never tracks shorter dead ends.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import compress

from engine.position import BAR, Board, Position
from engine.reference import Move


@dataclass(frozen=True, slots=True)
class Play:
    """One distinct legal play: a legal order of checker moves and the position it reaches.

    ``position`` is still seen by the mover (before the turn passes). ``moves`` is empty only
    for the forced pass, which :func:`legal_plays` never returns. The variants of
    :mod:`engine.variants` use the same value, ``position`` then being the variant's position.
    """

    moves: tuple[Move, ...]
    position: Position


# -- tables that depend only on the rules ----------------------------------------------------

# _MOVE[d][s]: the (from, to) pair of a step of d pips from square s (bearing off lands on 0).
# Shared tuples: the hot loops never allocate a pair.
_MOVE: tuple[tuple[Move, ...], ...] = tuple(
    tuple((s, max(s - d, 0)) for s in range(26)) for d in range(7)
)
# Points 24..1: zipped with ``board[24:0:-1]`` by ``compress`` to list occupied points, highest
# first, at C speed.
_POINTS_DOWN = range(24, 0, -1)
_SQUARES_DOWN = range(25, 0, -1)  # the same with the bar first

# Results are built without the dataclasses' __init__ (Position's re-validates the board, and
# frozen dataclasses set each field through object.__setattr__): allocate the object and fill
# its slots through the slot descriptors.
_new = object.__new__
_set_mover = Position.mover.__set__  # type: ignore[attr-defined]
_set_opponent = Position.opponent.__set__  # type: ignore[attr-defined]
_set_moves = Play.moves.__set__  # type: ignore[attr-defined]
_set_position = Play.position.__set__  # type: ignore[attr-defined]


def _play(moves: tuple[Move, ...], mover: Board, opponent: Board) -> Play:
    position = _new(Position)
    _set_mover(position, mover)
    _set_opponent(position, opponent)
    play = _new(Play)
    _set_moves(play, moves)
    _set_position(play, position)
    return play


class _Hits:
    """The opponent's board after the hits of a play, one tuple per distinct set of hit points.

    A hit set is a bitmask of the mover's points; many plays share one (or none), so each board
    is built once per call.
    """

    __slots__ = ("cache", "opponent")

    def __init__(self, opponent: Board) -> None:
        self.opponent = opponent
        self.cache: dict[int, Board] = {0: opponent}

    def board(self, hits: int) -> Board:
        board = self.cache.get(hits)
        if board is None:
            counts = list(self.opponent)
            mask = hits
            while mask:
                low = mask & -mask
                point = low.bit_length() - 1
                counts[25 - point] -= 1  # the mover's point t is the opponent's 25 - t
                counts[BAR] += 1
                mask ^= low
            board = self.cache[hits] = tuple(counts)
        return board


# -- the entry point -------------------------------------------------------------------------


def legal_plays(position: Position, d1: int, d2: int) -> tuple[Play, ...]:
    """All distinct legal plays of ``d1``-``d2`` in ``position``, sorted by their moves.

    An empty tuple means no die can be played: the turn passes.
    """
    if not (0 < d1 < 7 and 0 < d2 < 7):
        raise ValueError(f"dice must be 1..6, got {d1} and {d2}")
    mover = position.mover
    # opp_on[t]: opponent checkers on the mover's point t (t = 1..24); one C-level slice.
    opp_on = position.opponent[25:0:-1]
    bar = mover[BAR]
    # Bear-off needs every checker home and each step brings at most one more home, so with
    # more checkers outside than steps left no step of this turn can bear off. A checker on the
    # bar cannot come home before the turn's last step either (it enters on 19-24). Counted on
    # the board, not from 15: hypergammon (engine.variants) plays three checkers a side.
    outside = sum(mover[7:26])
    if d1 == d2:
        if bar == 1 or (not bar and outside > 3):
            return _doubles_contact(position, opp_on, d1)
        return _doubles_general(position, opp_on, d1)
    hi, lo = (d1, d2) if d1 > d2 else (d2, d1)
    if bar == 1 or (not bar and outside > 1):
        return _two_dice_contact(position, opp_on, hi, lo)
    if bar:
        return _two_dice_from_bar(position, opp_on, hi, lo)
    return _two_dice_general(position, opp_on, hi, lo)


# -- single-step legality (used by validation; the searches below inline it) ---------------


def step_target(board: list[int] | Board, opp_on: Board, source: int, die: int) -> int:
    """Where a checker on ``source`` lands with ``die`` on ``board``, or -1 if it may not move.

    ``board`` is the mover's counts (``board[source]`` must be positive), ``opp_on`` the
    opponent's counts indexed by the mover's points. Checks everything that depends on the
    single step: bar first, blocked landing, bear-off (all home; exact, or oversize from the
    highest occupied point).

    >>> start = Position.start()
    >>> opp_on = start.opponent[25:0:-1]
    >>> step_target(start.mover, opp_on, 24, 5), step_target(start.mover, opp_on, 13, 2)
    (-1, 11)
    >>> home = Position.from_points({4: 1, 2: 1}, {})
    >>> [step_target(home.mover, opp_on, s, 6) for s in (4, 2)]
    [0, -1]
    """
    if source != BAR and board[BAR]:
        return -1
    target = source - die
    if target > 0:
        return target if opp_on[target] < 2 else -1
    if any(board[7:26]):
        return -1
    if target == 0 or not any(board[source + 1 : 7]):
        return 0
    return -1


# -- doubles ---------------------------------------------------------------------------------


def _doubles_contact(position: Position, opp_on: Board, die: int) -> tuple[Play, ...]:
    """Doubles with at most one checker on the bar and no bear-off possible this turn (the
    common case).

    Every step's legality is then static (its landing point is open), so the search runs over
    a precomputed list of usable sources and only checks that a checker is there.
    """
    mover = position.mover
    on = opp_on
    bar = mover[BAR]
    if bar and on[BAR - die] > 1:
        return ()  # cannot enter, and nothing else may move
    # Usable sources: squares from which a step of `die` lands on an open point and that a
    # checker occupies or can reach within the turn. `reach` counts how many steps the board
    # allows in total: checkers do not interfere here, so fewer than four means a partial
    # turn, which the general search handles.
    usable = bytearray(26)
    reach = 0
    for square in compress(_SQUARES_DOWN, mover[25:0:-1]):
        source, hops = square, 0
        while hops < 4:
            target = source - die
            if target < 1 or on[target] > 1:
                break
            usable[source] = 1
            hops += 1
            source = target
        reach += hops * mover[square]
    if reach < 4:
        return _doubles_general(position, opp_on, die)

    moves = _MOVE[die]
    items = [
        (s, s - die, moves[s], (1 << (s - die)) if on[s - die] == 1 else 0)
        for s in compress(_SQUARES_DOWN, usable[25:0:-1])
    ]
    # tails[i]: the items a later step may use (canonical order: never a higher source).
    tails = [items[i:] for i in range(len(items))]
    # A checker on the bar must enter first; it is the highest source, so it is items[0].
    firsts = items[:1] if bar else items
    board = list(mover)
    opponent = position.opponent
    hit_boards = _Hits(opponent)
    hit_get, hit_make = hit_boards.cache.get, hit_boards.board
    plays: list[Play] = []
    append = plays.append
    new, set_mover, set_opponent, set_moves, set_position = (
        _new,
        _set_mover,
        _set_opponent,
        _set_moves,
        _set_position,
    )
    for i1, (s1, t1, m1, h1) in enumerate(firsts):
        if not board[s1]:
            continue
        board[s1] -= 1
        board[t1] += 1
        for i2, (s2, t2, m2, h2) in enumerate(tails[i1], i1):
            if not board[s2]:
                continue
            board[s2] -= 1
            board[t2] += 1
            h12 = h1 | h2
            for i3, (s3, t3, m3, h3) in enumerate(tails[i2], i2):
                if not board[s3]:
                    continue
                board[s3] -= 1
                board[t3] += 1
                h123 = h12 | h3
                for s4, t4, m4, h4 in tails[i3]:
                    if not board[s4]:
                        continue
                    board[s4] -= 1
                    board[t4] += 1
                    result = tuple(board)
                    board[s4] += 1
                    board[t4] -= 1
                    hits = h123 | h4
                    pos = new(Position)
                    set_mover(pos, result)
                    set_opponent(pos, (hit_get(hits) or hit_make(hits)) if hits else opponent)
                    play = new(Play)
                    set_moves(play, (m1, m2, m3, m4))
                    set_position(play, pos)
                    append(play)
                board[s3] += 1
                board[t3] -= 1
            board[s2] += 1
            board[t2] -= 1
        board[s1] += 1
        board[t1] -= 1
    return tuple(plays)


def _doubles_general(position: Position, opp_on: Board, die: int) -> tuple[Play, ...]:
    """Doubles anywhere else: several checkers on the bar, bear-offs, partial turns.

    Checkers on the bar enter first (no choice there); the remaining steps are searched in
    canonical order with full step legality, keeping only the deepest plays.
    """
    board = list(position.mover)
    on = opp_on
    moves = _MOVE[die]
    entered: tuple[Move, ...] = ()
    hits = 0
    if board[BAR]:
        target = BAR - die
        if on[target] > 1:
            return ()
        n = min(board[BAR], 4)
        board[BAR] -= n
        board[target] += n
        entered = (moves[BAR],) * n
        hits = (1 << target) if on[target] == 1 else 0
        if board[BAR] or n == 4:
            return (_play(entered, tuple(board), _Hits(position.opponent).board(hits)),)
    # Checkers outside the home board (bar now empty); bearing off needs none.
    outside = sum(board[7:26])
    best = len(entered)
    found: list[tuple[tuple[Move, ...], Board, int]] = []

    def search(top: int, depth: int, played: tuple[Move, ...], hits: int, outside: int) -> None:
        nonlocal best
        extended = False
        if depth < 4:
            for s in range(top, 0, -1):
                if not board[s]:
                    continue
                t = s - die
                if t > 0:
                    if on[t] > 1:
                        continue
                    hit = (1 << t) if on[t] == 1 else 0
                elif outside or (t and any(board[s + 1 : 7])):
                    continue  # not all home, or an oversize die with a checker above
                else:
                    t = hit = 0
                extended = True
                board[s] -= 1
                board[t] += 1
                search(s, depth + 1, (*played, moves[s]), hits | hit, outside - (s > 6 >= t))
                board[s] += 1
                board[t] -= 1
        if not extended and depth >= best:
            if depth > best:
                best = depth
                found.clear()
            found.append((played, tuple(board), hits))

    search(24, len(entered), entered, hits, outside)
    if best == 0:
        return ()
    hit_boards = _Hits(position.opponent)
    return tuple(_play(played, mover, hit_boards.board(hits)) for played, mover, hits in found)


# -- two different dice ----------------------------------------------------------------------


def _two_dice_contact(position: Position, opp_on: Board, hi: int, lo: int) -> tuple[Play, ...]:
    """Two different dice, at most one checker on the bar, no bear-off possible (the common
    case).

    Steps are then independent apart from sharing checkers, so the results are:

    * pairs of one checker moving ``hi`` and another (original) checker moving ``lo``, each a
      distinct position, except when one lands where the other starts: that is one checker
      moving ``hi + lo``, covered next;
    * one checker moving ``hi + lo`` via either intermediate point; both routes reach the same
      position unless one of the intermediate points holds an opponent blot (then the hits
      differ).

    With a checker on the bar, one step of every pair is its entry and only it may combine.
    Only if no two-step play exists does a single die play, the higher one when it can.
    """
    mover = position.mover
    on = opp_on
    hi_moves, lo_moves = _MOVE[hi], _MOVE[lo]
    # (source, target, move, sort code, hit bit) of every legal single step of each die from
    # the points (sort code: (from, to) as one int, to sort plays without comparing tuples).
    highs = []
    lows = []
    points = list(compress(_POINTS_DOWN, mover[24:0:-1]))
    for s in points:
        t = s - hi
        if t > 0 and on[t] < 2:
            highs.append((s, t, hi_moves[s], s * 32 + t, (1 << t) if on[t] == 1 else 0))
        t = s - lo
        if t > 0 and on[t] < 2:
            lows.append((s, t, lo_moves[s], s * 32 + t, (1 << t) if on[t] == 1 else 0))

    opponent = position.opponent
    hit_boards = _Hits(opponent)
    board = list(mover)
    by_code: dict[int, Play] = {}
    if mover[BAR]:
        # The entry is one step of every play; pair it with the other die from the points.
        enter_hi, enter_lo = _entry(on, hi), _entry(on, lo)
        if enter_hi:
            _pairs(board, enter_hi, lows, by_code, hit_boards)
        if enter_lo:
            _pairs(board, highs, enter_lo, by_code, hit_boards)
        sources = [BAR]
        singles = enter_hi or enter_lo
    else:
        _pairs(board, highs, lows, by_code, hit_boards)
        sources = points
        singles = highs or lows

    # One checker moving hi + lo. Listed via the low die first (that pair of moves sorts
    # higher); the high-die route is a separate result only if a blot on either intermediate
    # point makes the hits differ.
    both = hi + lo
    hit_get, hit_make = hit_boards.cache.get, hit_boards.board
    for s in sources:
        t = s - both
        if t < 1 or on[t] > 1:
            continue
        via_lo, via_hi = s - lo, s - hi
        lo_open, hi_open = on[via_lo] < 2, on[via_hi] < 2
        if not (lo_open or hi_open):
            continue
        board[s] -= 1
        board[t] += 1
        result = tuple(board)
        board[s] += 1
        board[t] -= 1
        hit_t = (1 << t) if on[t] == 1 else 0
        if lo_open:
            hits = hit_t | ((1 << via_lo) if on[via_lo] == 1 else 0)
            by_code[(s * 32 + via_lo) << 10 | (via_lo * 32 + t)] = _play(
                (lo_moves[s], hi_moves[via_lo]), result, hit_get(hits) or hit_make(hits)
            )
        if hi_open and not (lo_open and on[via_lo] != 1 and on[via_hi] != 1):
            hits = hit_t | ((1 << via_hi) if on[via_hi] == 1 else 0)
            by_code[(s * 32 + via_hi) << 10 | (via_hi * 32 + t)] = _play(
                (hi_moves[s], lo_moves[via_hi]), result, hit_get(hits) or hit_make(hits)
            )
    if not by_code:
        return _single_die(position, singles)
    return tuple(map(by_code.__getitem__, sorted(by_code, reverse=True)))


def _entry(opp_on: Board, die: int) -> list:
    """The step record of entering with ``die``, in a list (empty if the point is held)."""
    t = BAR - die
    if opp_on[t] > 1:
        return []
    return [(BAR, t, _MOVE[die][BAR], BAR * 32 + t, (1 << t) if opp_on[t] == 1 else 0)]


def _pairs(board: list[int], highs: list, lows: list, by_code: dict, hit_boards: _Hits) -> None:
    """Add to ``by_code`` the plays moving one checker by each die, from the step records of
    the high and the low die; pairs where one step starts where the other lands are left to
    the one-checker combinations."""
    opponent = hit_boards.opponent
    hit_get, hit_make = hit_boards.cache.get, hit_boards.board
    new, set_mover, set_opponent, set_moves, set_position = (
        _new,
        _set_mover,
        _set_opponent,
        _set_moves,
        _set_position,
    )
    for sa, ta, ma, ca, ha in highs:
        board[sa] -= 1
        board[ta] += 1
        for sb, tb, mb, cb, hb in lows:
            # An empty source means one single checker there, already moved.
            if not board[sb] or sb == ta or tb == sa:
                continue
            board[sb] -= 1
            board[tb] += 1
            result = tuple(board)
            board[sb] += 1
            board[tb] -= 1
            hits = ha | hb
            pos = new(Position)
            set_mover(pos, result)
            set_opponent(pos, (hit_get(hits) or hit_make(hits)) if hits else opponent)
            play = new(Play)
            if sa > sb:
                set_moves(play, (ma, mb))
                by_code[ca << 10 | cb] = play
            else:  # on the same point the low die's move lands higher, so it sorts first
                set_moves(play, (mb, ma))
                by_code[cb << 10 | ca] = play
            set_position(play, pos)
        board[sa] += 1
        board[ta] -= 1


def _two_dice_from_bar(position: Position, opp_on: Board, hi: int, lo: int) -> tuple[Play, ...]:
    """Two different dice with two or more checkers on the bar: only entries can be played."""
    steps = [*_entry(opp_on, lo), *_entry(opp_on, hi)]  # (25, 25 - lo) sorts first
    if len(steps) < 2:
        return _single_die(position, steps)
    board = list(position.mover)
    board[BAR] -= 2
    hits = 0
    for _, t, _, _, hit in steps:
        board[t] += 1
        hits |= hit
    moves = (steps[0][2], steps[1][2])
    return (_play(moves, tuple(board), _Hits(position.opponent).board(hits)),)


def _single_die(position: Position, steps: list) -> tuple[Play, ...]:
    """One-step plays from ``(source, target, move, code, hit)`` step records."""
    mover = position.mover
    hit_boards = _Hits(position.opponent)
    plays = []
    for s, t, move, _, hit in steps:
        board = list(mover)
        board[s] -= 1
        board[t] += 1
        plays.append(_play((move,), tuple(board), hit_boards.board(hit)))
    return tuple(plays)


def _two_dice_general(position: Position, opp_on: Board, hi: int, lo: int) -> tuple[Play, ...]:
    """Two different dice with nothing on the bar and at most one checker outside, so bearing
    off may happen: a two-level search in canonical order with full step legality and a
    dictionary of results (in the bear-off, different moves can reach one position)."""
    mover = position.mover
    on = opp_on
    board = list(mover)
    outside = sum(mover[7:26])
    seen: dict[tuple[Board, int], tuple[tuple[Move, ...], Board, int]] = {}
    singles: dict[int, list[tuple[tuple[Move, ...], Board, int]]] = {hi: [], lo: []}
    for s1 in compress(_POINTS_DOWN, mover[24:0:-1]):
        # (s1, s1 - lo) sorts above (s1, s1 - hi): try the low die first from each point.
        for first, second in ((lo, hi), (hi, lo)):
            t1 = s1 - first
            if t1 > 0:
                if on[t1] > 1:
                    continue
                hit1 = (1 << t1) if on[t1] == 1 else 0
            elif outside or (t1 and any(board[s1 + 1 : 7])):
                continue  # not all home, or an oversize die with a checker above
            else:
                t1 = hit1 = 0
            m1 = _MOVE[first][s1]
            board[s1] -= 1
            board[t1] += 1
            singles[first].append(((m1,), tuple(board), hit1))
            out1 = outside - (s1 > 6 >= t1)
            second_moves = _MOVE[second]
            for s2 in range(s1, 0, -1):
                # Two steps from one point are taken low die first (always legal if the other
                # order is), so the pair is generated once.
                if not board[s2] or (s2 == s1 and first == hi):
                    continue
                t2 = s2 - second
                if t2 > 0:
                    if on[t2] > 1:
                        continue
                    hits = hit1 | ((1 << t2) if on[t2] == 1 else 0)
                elif out1 or (t2 and any(board[s2 + 1 : 7])):
                    continue
                else:
                    t2 = 0
                    hits = hit1
                board[s2] -= 1
                board[t2] += 1
                key = (tuple(board), hits)
                if key not in seen:  # the first found has the largest move list
                    seen[key] = ((m1, second_moves[s2]), key[0], hits)
                board[s2] += 1
                board[t2] -= 1
            board[s1] += 1
            board[t1] -= 1
    found = list(seen.values()) or singles[hi] or singles[lo]
    if seen:
        # Pairs come out in order except after a bear-off that either die makes: the pairs
        # that start with the same (s, 0) by the low and then by the high die interleave.
        found.sort(key=lambda item: item[0], reverse=True)
    hit_boards = _Hits(position.opponent)
    return tuple(_play(moves, mover, hit_boards.board(hits)) for moves, mover, hits in found)
