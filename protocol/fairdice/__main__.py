"""``python -m protocol.fairdice {dice,verify} ...``: the same commands as ``fairgammon dice``
and ``fairgammon verify``, for auditors who have only the protocol package."""

import argparse
import sys

from protocol.fairdice.cli import (
    BadUsage,
    add_dice_arguments,
    add_verify_arguments,
    run_dice,
    run_verify,
)


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m protocol.fairdice")
    sub = parser.add_subparsers(dest="command", metavar="{dice,verify}")
    add_dice_arguments(sub.add_parser("dice", help="chain links and roll derivation"))
    add_verify_arguments(sub.add_parser("verify", help="verify a finished game's transcript"))
    args = parser.parse_args()
    runners = {"dice": run_dice, "verify": run_verify}
    if args.command not in runners:
        parser.print_help(sys.stderr)
        return 2
    try:
        return runners[args.command](args)
    except BadUsage as exc:
        print(f"{parser.prog} {args.command}: {exc}", file=sys.stderr)
        return 2


sys.exit(main())
