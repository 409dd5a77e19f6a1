"""``fairgammon show POSITION_ID``: print the board a GNU Backgammon Position ID describes."""

from __future__ import annotations

import argparse

from engine.board_text import render
from engine.position_id import PositionIdError, decode
from server.cli import UsageError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("position_id", metavar="POSITION_ID", help="a 14-character Position ID")


def run(args: argparse.Namespace) -> int:
    try:
        position = decode(args.position_id)
    except PositionIdError as exc:
        raise UsageError(f"bad Position ID {args.position_id!r}: {exc}") from None
    print(render(position))
    return 0
