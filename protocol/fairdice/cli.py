"""The command-line shell around the scheme: ``dice chain``, ``dice roll`` and ``verify``.

``server/cli/dice.py``, ``server/cli/verify.py`` (the ``fairgammon`` command) and
``python -m protocol.fairdice`` all use these functions. Arguments are taken as strings and
checked here, so that every bad argument gives one line on standard error and exit status 2
(:class:`BadUsage`). Exit status of ``verify``: 0 verified, 1 not verified, 2 bad usage.
"""

from __future__ import annotations

import argparse
import re
import sys
from typing import TextIO

from protocol.fairdice.chain import MAX_CHAIN_LENGTH, HashChain
from protocol.fairdice.dice import derive_dice
from protocol.fairdice.encoding import (
    DEFAULT_CHAIN_LENGTH,
    LINK_SIZE,
    MATCH_ID_SIZE,
    U32_MAX,
    GameId,
    from_hex,
)
from protocol.fairdice.errors import EncodingError, TranscriptError
from protocol.fairdice.schema import load_json
from protocol.fairdice.verify import verify_json

_DIGITS = re.compile(r"[0-9]+")


class BadUsage(Exception):
    """A bad command-line argument: one line on standard error, exit status 2."""


def add_dice_arguments(parser: argparse.ArgumentParser) -> None:
    """``dice chain ...`` and ``dice roll ...``."""
    sub = parser.add_subparsers(dest="dice_command", metavar="{chain,roll}")
    chain = sub.add_parser(
        "chain",
        help="print a seat's commitment s[0], or its link s[K] with --index",
        description="Build a seat's hash chain from its secret s[N] and print s[0] (or s[K]).",
    )
    chain.add_argument("--match-id", metavar="HEX32", help="16-byte match id, hex")
    chain.add_argument("--game", metavar="N", help="game number in the match (u32)")
    chain.add_argument("--seat", metavar="S", help="0 or 1")
    chain.add_argument("--secret", metavar="HEX64", help="the 32-byte secret s[N], hex")
    chain.add_argument(
        "--length", metavar="N", default=str(DEFAULT_CHAIN_LENGTH), help="chain length N"
    )
    chain.add_argument("--index", metavar="K", help="print s[K] instead of s[0]")
    roll = sub.add_parser(
        "roll",
        help="print the dice 'D1 D2' of roll K from both seats' reveals",
        description="Derive the dice of roll K from both reveals (d1 is seat 0's die in the "
        "roll-off).",
    )
    roll.add_argument("--match-id", metavar="HEX32", help="16-byte match id, hex")
    roll.add_argument("--game", metavar="N", help="game number in the match (u32)")
    roll.add_argument("--roll", metavar="K", help="roll index, 1 for the first roll")
    roll.add_argument("--seat0", metavar="HEX64", help="seat 0's reveal s0[K], hex")
    roll.add_argument("--seat1", metavar="HEX64", help="seat 1's reveal s1[K], hex")


def add_verify_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "transcript", nargs="?", metavar="TRANSCRIPT.json", help="the transcript ('-': stdin)"
    )
    parser.add_argument(
        "--no-replay",
        action="store_true",
        help="check the dice only, do not replay the plays through the rules engine",
    )


def run_dice(args: argparse.Namespace, out: TextIO = sys.stdout) -> int:
    if args.dice_command == "chain":
        game = _game(args)
        seat = _int(args.seat, "--seat", 0, 1)
        secret = _hex(args.secret, LINK_SIZE, "--secret")
        length = _int(args.length, "--length", 1, MAX_CHAIN_LENGTH)
        index = 0 if args.index is None else _int(args.index, "--index", 0, length)
        print(HashChain(secret, game, seat, length).link(index).hex(), file=out)
        return 0
    if args.dice_command == "roll":
        game = _game(args)
        k = _int(args.roll, "--roll", 1, U32_MAX)
        s0 = _hex(args.seat0, LINK_SIZE, "--seat0")
        s1 = _hex(args.seat1, LINK_SIZE, "--seat1")
        d1, d2 = derive_dice(game, k, s0, s1)
        print(f"{d1} {d2}", file=out)
        return 0
    raise BadUsage("expected 'chain' or 'roll' (see --help)")


def run_verify(
    args: argparse.Namespace, out: TextIO = sys.stdout, stdin: TextIO = sys.stdin
) -> int:
    path = args.transcript
    if path is None:
        raise BadUsage("expected a transcript file (see --help)")
    try:
        if path == "-":
            data: str | bytes = stdin.read()
        else:
            with open(path, "rb") as f:
                data = f.read()
    except OSError as exc:
        raise BadUsage(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        obj = load_json(data)
    except TranscriptError as exc:
        raise BadUsage(f"{path}: {exc}") from None
    try:
        verdict = verify_json(obj, replay=not args.no_replay)
    except TranscriptError as exc:
        print(f"NOT VERIFIED ({exc.code}): {exc}", file=out)
        return 1
    print(verdict.summary(), file=out)
    return 0


def _game(args: argparse.Namespace) -> GameId:
    match_id = _hex(args.match_id, MATCH_ID_SIZE, "--match-id")
    return GameId(match_id, _int(args.game, "--game", 0, U32_MAX))


def _int(text: str | None, name: str, lo: int, hi: int) -> int:
    if text is None:
        raise BadUsage(f"{name} is required")
    if not _DIGITS.fullmatch(text.strip()) or not lo <= int(text) <= hi:
        raise BadUsage(f"{name} must be an integer in {lo} .. {hi}, got {text!r}")
    return int(text)


def _hex(text: str | None, size: int, name: str) -> bytes:
    if text is None:
        raise BadUsage(f"{name} is required")
    try:
        return from_hex(text.strip(), size, name)
    except EncodingError as exc:
        raise BadUsage(str(exc)) from None
