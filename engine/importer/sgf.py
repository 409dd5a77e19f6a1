"""Read GNU Backgammon's SGF files (the Smart Game Format, backgammon flavour: ``GM[6]``) into
:class:`engine.importer.steps.Parsed`.

The format (the SGF backgammon specification at red-bean.com/sgf/backgammon.html, and what
gnubg writes): a collection of game trees ``(;root;node;node...)``, one per game. The root's
``MI[length:7][game:0][ws:0][bs:0]`` gives the match length, the 0-based game number and the
scores before the game (``ws`` for White, ``bs`` for Black); ``PW``/``PB`` the players, ``RU``
the rules (``Crawford``, ``CrawfordGame`` for the Crawford game itself, ``Jacoby``, ``NoCube``,
variants), ``RE`` the result (``W+3``, or ``B+2R`` when the loser resigned). Each later node's
``W[...]`` or ``B[...]`` is an action: ``double`` (a double by the doubled player is a beaver),
``take``, ``drop``, or the dice and the checker moves, two letters each: ``a`` .. ``x`` are
White's points 1..24 (Black's 24..1), ``y`` the bar and ``z`` off. ``PL[B]DI[52]`` is a roll
that was not played (the roller resigned). White is seat 0, Black seat 1.

Read and ignored: analysis and comments (``A``, ``DA``, ``GS``, ``LU``, ``C``, marks...), the
date, event and ratings (kept as tags), variations beyond the main line. Refused (typed
errors): other games (``GM`` not 6), variants, automatic doubles, position setups (``AB``,
``AW``, ``AE``, ``CP``, ``CV`` in a game).

>>> text = "(;FF[4]GM[6]MI[length:3][game:0][ws:0][bs:0]PW[Ann]PB[Bob];W[31hefe])"
>>> parsed = parse_sgf(text)
>>> parsed.names, parsed.length, parsed.games[0].steps[0].segments
(('Ann', 'Bob'), 3, ((8, 5), (6, 5)))
>>> parse_sgf("(;FF[4]GM[1];B[dd])")
Traceback (most recent call last):
...
engine.importer.errors.MatchFileError: line 1, column 11: not a backgammon game (GM[1])
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

from engine.importer.errors import (
    FileErrorCode,
    MatchFileError,
    Where,
    inconsistent,
    syntax,
    unsupported,
)
from engine.importer.steps import Double, Drop, GameSteps, Parsed, Roll, Step, Take, Win
from engine.matfile import clean_name

MAX_NODES = 100_000
"""Most nodes read from one file."""

_SETUP = frozenset({"AB", "AW", "AE", "CP", "CO", "CV"})
_RESULT = re.compile(r"^([BW])\+(\d{1,6})(R|Resign)?$", re.IGNORECASE)
_MOVE = re.compile(r"^([1-6])([1-6])([a-z]*)$")
_WORDS = {"double": Double, "take": Take, "drop": Drop}
_VARIANTS = ("Nackgammon", "Hypergammon1", "Hypergammon2", "Hypergammon3")


@dataclass
class _Node:
    offset: int
    props: dict[str, list[tuple[str, int]]] = field(default_factory=dict)


@dataclass
class _Tree:
    offset: int
    nodes: list[_Node] = field(default_factory=list)
    children: list[_Tree] = field(default_factory=list)


class _Text:
    """The file with offsets turned into lines and columns."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0] + [m.end() for m in re.finditer(r"\r\n|\r|\n", text)]

    def where(self, offset: int) -> Where:
        line = bisect.bisect_right(self.starts, offset)
        return Where(line, offset - self.starts[line - 1] + 1)


def parse_sgf(text: str) -> Parsed:
    """The SGF file ``text`` as written, or :class:`MatchFileError` naming the line."""
    src = _Text(text)
    trees = _parse_trees(src)
    if not trees:
        raise syntax("no game in the file ('(;GM[6]...)')", None)
    notes: list[str] = []
    games: list[GameSteps] = []
    names: tuple[str, str] | None = None
    length: int | None = None
    jacoby = False
    crawford_rule = True
    tags: dict[str, str] = {}
    for tree in trees:
        nodes, dropped = _main_line(tree)
        if dropped:
            notes.append(f"{dropped} variation(s) beside the main line ignored")
        info = _Root(src, nodes[0])
        if info.length and info.rules is not None and "Crawford" not in info.rules:
            crawford_rule = False
        if names is None:
            names, length, jacoby = info.names, info.length, info.jacoby
            tags = info.tags
        else:
            if info.names != names:
                raise inconsistent(f"the players are {info.names[0]} and {info.names[1]} here, "
                                   f"{names[0]} and {names[1]} before", info.where)
            if info.length != length:
                raise inconsistent(f"a {info.length}-point game in a {length}-point match",
                                   info.where)
        steps: list[Step] = []
        for node in nodes:
            steps.extend(_node_steps(src, node, node is nodes[0]))
        if info.result is not None:
            steps.append(info.result)
        games.append(GameSteps(src.where(tree.offset), info.number, info.score, tuple(steps),
                               crawford=info.crawford_game))
    assert names is not None and length is not None
    return Parsed(
        format="sgf",
        names=names,
        length=length,
        games=tuple(games),
        crawford_rule=crawford_rule,
        jacoby=jacoby,
        cube_limit=1 if any(_no_cube(t) for t in trees) else None,
        tags=tags,
        notes=tuple(dict.fromkeys(notes)),
    )


class _Root:
    """The game-information properties of a game's root node."""

    def __init__(self, src: _Text, node: _Node) -> None:
        self.where = src.where(node.offset)
        props = node.props
        game = _one(props, "GM")
        if game is None:
            raise MatchFileError(FileErrorCode.UNKNOWN_FORMAT,
                                 "no GM[6]: not a backgammon SGF file", self.where)
        if game[0].strip() != "6":
            raise MatchFileError(FileErrorCode.UNKNOWN_FORMAT,
                                 f"not a backgammon game (GM[{game[0].strip()}])",
                                 src.where(game[1]))
        info: dict[str, tuple[int, Where]] = {}
        for value, offset in props.get("MI", []):
            key, _, number = value.partition(":")
            key = key.strip().lower()
            if key in ("length", "game", "ws", "bs"):
                number = number.strip()
                if not number.isdigit() or len(number) > 6:
                    raise syntax(f"MI[{value}]: not a number", src.where(offset))
                info[key] = (int(number), src.where(offset))
        self.length = info.get("length", (0, self.where))[0]
        self.number = info.get("game", (0, self.where))[0] + 1
        self.score = (info.get("ws", (0, self.where))[0], info.get("bs", (0, self.where))[0])
        white = _one(props, "PW")
        black = _one(props, "PB")
        self.names = (_name(white[0] if white else "", "White"),
                      _name(black[0] if black else "", "Black"))
        rules: set[str] = set()
        for value, offset in props.get("RU", []):
            for rule in value.split(":"):
                rule = rule.strip()
                if rule in _VARIANTS:
                    raise unsupported(f"the {rule} variant (only backgammon is played here)",
                                      src.where(offset))
                rules.add(rule)
        self.rules = rules if "RU" in props else None
        self.crawford_game = ("CrawfordGame" in rules) if self.length else None
        self.jacoby = "Jacoby" in rules
        cube = _one(props, "CV")
        if cube is not None and cube[0].strip() not in ("", "1"):
            raise unsupported(f"automatic doubles (CV[{cube[0].strip()}])", src.where(cube[1]))
        self.result: Win | None = None
        result = _one(props, "RE")
        if result is not None and result[0].strip():
            found = _RESULT.match(result[0].strip())
            if found is None:
                raise syntax(f"RE[{result[0]}]: expected W+3, B+2 or W+1R", src.where(result[1]))
            self.result = Win(src.where(result[1]), 0 if found.group(1).upper() == "W" else 1,
                              int(found.group(2)), resigned=found.group(3) is not None)
        self.tags: dict[str, str] = {}
        for key, tag in (("DT", "EventDate"), ("EV", "Event"), ("RO", "Round"), ("PC", "Site"),
                         ("AN", "Annotator"), ("GC", "Comment"), ("AP", "Application"),
                         ("WR", "Player 1 Rating"), ("BR", "Player 2 Rating")):
            found_tag = _one(props, key)
            if found_tag is not None and found_tag[0].strip():
                self.tags[tag] = found_tag[0].strip()


def _node_steps(src: _Text, node: _Node, root: bool) -> list[Step]:
    props = node.props
    for key in _SETUP:
        if key in props and not (root and key == "CV"):
            raise unsupported(f"a position setup ({key}) inside a game",
                              src.where(props[key][0][1]))
    steps: list[Step] = []
    moves = [(seat, props[key][0]) for seat, key in ((0, "W"), (1, "B")) if key in props]
    if len(moves) > 1:
        raise syntax("one node, two moves (W and B)", src.where(moves[1][1][1]))
    for seat, (value, offset) in moves:
        steps.append(_move(value.strip(), seat, src.where(offset)))
    if "DI" in props:
        value, offset = props["DI"][0]
        player = _one(props, "PL")
        if player is None or player[0].strip().upper() not in ("W", "B"):
            raise unsupported("dice set (DI) without the player who rolled them (PL)",
                              src.where(offset))
        found = _MOVE.match(value.strip())
        if found is None or found.group(3):
            raise syntax(f"DI[{value}]: expected two dice", src.where(offset))
        seat = 0 if player[0].strip().upper() == "W" else 1
        steps.append(Roll(src.where(offset), seat, (int(found.group(1)), int(found.group(2)))))
    elif "PL" in props and not root:
        raise unsupported("a player set to move (PL) inside a game", src.where(props["PL"][0][1]))
    return steps


def _move(value: str, seat: int, where: Where) -> Step:
    word = _WORDS.get(value.lower())
    if word is not None:
        return word(where, seat)
    if value.lower() == "beaver":
        return Double(where, seat)
    found = _MOVE.match(value)
    if found is None:
        raise syntax(f"not a move: {value!r} (dice, then two letters per checker move)", where)
    letters = found.group(3)
    if len(letters) % 2 or len(letters) > 8:
        raise syntax(f"{value!r}: checker moves come in pairs of letters, at most four", where)
    segments = []
    for i in range(0, len(letters), 2):
        segments.append((_point(letters[i], seat, where), _point(letters[i + 1], seat, where)))
    return Roll(where, seat, (int(found.group(1)), int(found.group(2))), tuple(segments),
                None, value)


def _point(letter: str, seat: int, where: Where) -> int:
    if letter == "y":
        return 25
    if letter == "z":
        return 0
    index = ord(letter) - ord("a")
    if not 0 <= index < 24:
        raise syntax(f"no point {letter!r}", where)
    return index + 1 if seat == 0 else 24 - index


def _parse_trees(src: _Text) -> list[_Tree]:
    text = src.text
    n = len(text)
    roots: list[_Tree] = []
    stack: list[_Tree] = []
    nodes = 0
    i = 0
    while True:
        while i < n and text[i].isspace():
            i += 1
        if i >= n:
            break
        c = text[i]
        if c == "(":
            tree = _Tree(i)
            (stack[-1].children if stack else roots).append(tree)
            stack.append(tree)
            i += 1
        elif c == ")":
            if not stack:
                raise syntax("')' without '('", src.where(i))
            tree = stack.pop()
            if not tree.nodes:
                raise syntax("a game tree without a node ('(;...)')", src.where(tree.offset))
            i += 1
        elif c == ";" and stack:
            if stack[-1].children:
                raise syntax("a node after a variation", src.where(i))
            nodes += 1
            if nodes > MAX_NODES:
                raise syntax(f"more than {MAX_NODES} nodes", src.where(i))
            node, i = _parse_node(src, i)
            stack[-1].nodes.append(node)
        elif not stack:
            raise syntax(f"expected '(', got {c!r}", src.where(i))
        else:
            raise syntax(f"expected ';', '(' or ')', got {c!r}", src.where(i))
    if stack:
        raise syntax("a game tree is not closed with ')'", src.where(stack[-1].offset))
    return roots


def _parse_node(src: _Text, i: int) -> tuple[_Node, int]:
    text = src.text
    n = len(text)
    node = _Node(i)
    i += 1
    while True:
        while i < n and text[i].isspace():
            i += 1
        start = i
        while i < n and text[i].isalpha() and text[i].isascii():
            i += 1
        if i == start:
            return node, i
        ident = "".join(c for c in text[start:i] if c.isupper())
        values = node.props.setdefault(ident, []) if ident else []
        count = 0
        while True:
            while i < n and text[i].isspace():
                i += 1
            if i >= n or text[i] != "[":
                break
            value, i = _parse_value(src, i)
            values.append(value)
            count += 1
        if not count:
            raise syntax(f"property {text[start:i].strip()!r} without a value '[...]'",
                         src.where(start))


def _parse_value(src: _Text, i: int) -> tuple[tuple[str, int], int]:
    text = src.text
    n = len(text)
    start = i
    i += 1
    out: list[str] = []
    while i < n:
        c = text[i]
        if c == "\\":
            # An escaped character stands for itself; an escaped line break is no character.
            if text.startswith("\r\n", i + 1):
                i += 3
            else:
                if i + 1 < n and text[i + 1] not in "\r\n":
                    out.append(text[i + 1])
                i += 2
            continue
        if c == "]":
            return ("".join(out), start + 1), i + 1
        out.append(c)
        i += 1
    raise syntax("a property value is not closed with ']'", src.where(start))


def _main_line(tree: _Tree) -> tuple[list[_Node], int]:
    nodes: list[_Node] = []
    dropped = 0
    while True:
        nodes.extend(tree.nodes)
        if not tree.children:
            return nodes, dropped
        dropped += len(tree.children) - 1
        tree = tree.children[0]


def _no_cube(tree: _Tree) -> bool:
    return any("NoCube" in value.split(":") for value, _ in tree.nodes[0].props.get("RU", []))


def _one(props: dict[str, list[tuple[str, int]]], key: str) -> tuple[str, int] | None:
    values = props.get(key)
    return values[0] if values else None


def _name(text: str, default: str) -> str:
    return clean_name(text, default)
