"""Import ``.mat`` files into Debian's GNU Backgammon and read back what it understood.

One ``gnubg -t -q -p script`` process imports every file (a gnubg start costs ~0.2 s): for each
file the script prints one ``FGMAT <json>`` line with the games, each game's plays and result,
and the final score as gnubg counts it (or the import error). Before each import the Jacoby rule
is set as the file's header says (gnubg's importer ignores that tag).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

# Debian installs gnubg under /usr/games, which is not on every PATH.
SEARCH_PATH = os.pathsep.join([os.environ.get("PATH", ""), "/usr/games"])

_SCRIPT = r'''
import json, os
import gnubg

for path in open(os.environ["FG_MAT_LIST"]).read().split("\n"):
    if not path:
        continue
    out = {"file": os.path.basename(path)}
    # gnubg's .mat importer ignores the Jacoby tag and plays by its own setting (On by default):
    # set it as the file's header says, as a user reading the header would.
    jacoby = '; [Jacoby "On"]' in open(path).read()
    gnubg.command("set jacoby " + ("on" if jacoby else "off"))
    try:
        gnubg.command('import mat "%s"' % path)
        m = gnubg.match(analysis=0, boards=0, statistics=0, verbose=0)
    except Exception as e:  # gnubg raises when nothing was imported
        out["error"] = repr(e)
    else:
        info = m["match-info"]
        out["length"] = info["match-length"]
        out["names"] = [info["X"]["name"], info["O"]["name"]]
        games = []
        for g in m["games"]:
            gi = g["info"]
            games.append({
                "score": [gi["score-X"], gi["score-O"]],
                "winner": gi.get("winner"),  # no winner: gnubg sees the game unfinished
                "points": gi.get("points-won"),
                "resigned": gi.get("resigned"),
                "actions": [[a["action"], a["player"], a.get("move"), a.get("dice")]
                            for a in g["game"]],
            })
        out["games"] = games
    print("FGMAT " + json.dumps(out), flush=True)
'''


def gnubg_command() -> str | None:
    return shutil.which("gnubg", path=SEARCH_PATH)


def import_mats(texts: Sequence[str], timeout: float = 60) -> list[dict]:
    """What gnubg reads from each ``.mat`` text, in order (one gnubg process for all)."""
    gnubg = gnubg_command()
    if gnubg is None:
        raise RuntimeError("gnubg is not installed (Debian package gnubg, in /usr/games)")
    with tempfile.TemporaryDirectory(prefix="fg-gnubg-") as tmp:
        paths = []
        for i, text in enumerate(texts):
            path = Path(tmp) / f"m{i:03d}.mat"
            path.write_text(text)
            paths.append(str(path))
        listing = Path(tmp) / "list.txt"
        listing.write_text("\n".join(paths) + "\n")
        script = Path(tmp) / "read.py"
        script.write_text(_SCRIPT)
        env = dict(os.environ, FG_MAT_LIST=str(listing), HOME=tmp)
        done = subprocess.run(
            [gnubg, "-t", "-q", "-p", str(script)],
            capture_output=True, text=True, timeout=timeout, env=env, cwd=tmp, check=False,
        )
    results = [
        json.loads(line[len("FGMAT "):])
        for line in done.stdout.splitlines()
        if line.startswith("FGMAT ")
    ]
    if len(results) != len(texts):
        raise RuntimeError(
            f"gnubg answered for {len(results)} of {len(texts)} files "
            f"(exit {done.returncode}): {done.stderr[-2000:]}"
        )
    return results
