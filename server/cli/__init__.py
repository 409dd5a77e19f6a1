"""The ``fairgammon`` command line.

Each subcommand lives in its own module of this package with two functions:
``add_arguments(parser)`` and ``run(args) -> int`` (the exit status). Modules import what
they need inside ``run`` so that ``fairgammon legal`` does not pay for the web stack. The worker
commands (``bots``, ``analyse``) take both from one runner, ``workers.WorkerCommand``.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

# name -> (module, one-line help). Order is the order shown by --help.
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "serve": ("serve", "run the server (embedded Redis unless REDIS_URL is set)"),
    "show": ("show", "print a board from a GNU Backgammon Position ID"),
    "legal": ("legal", "batch: 'POSITION_ID D1 D2' lines in, resulting Position IDs out"),
    "dice": ("dice", "fair-dice chain links and roll derivation (for players and auditors)"),
    "verify": ("verify", "verify the dice and actions of a finished game's transcript"),
    "play-random": ("play_random", "a bot that joins a match and plays random legal moves"),
    "bots": ("bots", "run bot worker processes: the computer opponent (docs/bots.md)"),
    "analyse": ("analyse", "run analysis worker processes: luck and skill of every finished game"),
    "accounts": ("accounts", "operator's account commands: mark a bot account (docs/accounts.md)"),
    "flags": ("flags", "print the matches flagged for fair play, newest first (docs/fairplay.md)"),
}


class UsageError(Exception):
    """A bad argument: reported as one line on standard error with exit status 2."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="fairgammon", description="Fair, strict, crash-proof online backgammon."
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module_name, help_text) in SUBCOMMANDS.items():
        try:
            module = importlib.import_module(f"{__name__}.{module_name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{module_name}":
                raise
            continue  # not built yet
        command = sub.add_parser(name, help=help_text, description=help_text)
        module.add_arguments(command)
        command.set_defaults(_run=module.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "_run", None):
        parser.print_help(sys.stderr)
        return 2
    try:
        return int(args._run(args) or 0)
    except UsageError as exc:
        print(f"fairgammon {args.command}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
