#!/usr/bin/env bash
# Prepare a fresh Debian machine to run fairgammon: system packages, a .venv and the Python packages.
# Usage: scripts/bootstrap.sh [--extras test] [system-command ...]
#   Each system command (redis-server, chromium, nginx, gnubg, node, npm) is installed with
#   apt-get when missing and we are root; otherwise we say exactly what to install and carry on (the caller decides
#   whether the missing piece is fatal). Idempotent and quick when everything is already there.
set -euo pipefail
cd "$(dirname "$0")/.."

extras=""
if [[ ${1:-} == --extras ]]; then extras=$2; shift 2; fi
PYTHON=${PYTHON:-python3}

say() { printf 'bootstrap: %s\n' "$*" >&2; }

declare -A package_of=(
  [redis-server]=redis-server
  [chromium]=chromium
  [node]=nodejs
  [npm]=npm
  [gnubg]=gnubg
)

missing=()
for cmd in "$@"; do
  # Debian puts some commands (gnubg) in /usr/games, which is not on every PATH.
  PATH="$PATH:/usr/games" command -v "$cmd" >/dev/null 2>&1 ||
    missing+=("${package_of[$cmd]:-$cmd}")
done
if ! "$PYTHON" -c 'import ensurepip, venv' >/dev/null 2>&1; then
  missing+=("python3-venv")
fi

apt_updated=0
apt_install() {
  if [[ $(id -u) -ne 0 ]]; then
    say "missing Debian packages: $*"
    say "install them with: sudo apt-get install -y $*"
    return 1
  fi
  if ((apt_updated == 0)); then
    say "apt-get update"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq
    apt_updated=1
  fi
  say "apt-get install $*"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

if ((${#missing[@]})); then
  # Debian's nodejs may already ship npm (nodesource builds do): never ask apt for both then.
  apt_install "${missing[@]}" || say "continuing without: ${missing[*]}"
fi

if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
  say "Python 3.11 or newer is required ($("$PYTHON" --version 2>&1) found)"
  exit 1
fi

stamp_key=$(cat pyproject.toml | sha256sum | cut -c1-16)${extras}
stamp=.venv/.installed-$stamp_key
if [[ ! -f $stamp ]]; then
  [[ -x .venv/bin/python ]] || { say "creating .venv"; "$PYTHON" -m venv .venv; }
  say "installing Python packages into .venv (${extras:-runtime})"
  .venv/bin/python -m pip install -q --upgrade pip >/dev/null
  spec="."
  [[ -n $extras ]] && spec=".[$extras]"
  # Editable: the console script runs this checkout's sources. (setuptools appends its finder to
  # sys.meta_path, so `python -m ...` run inside any other checkout still sees that checkout.)
  .venv/bin/python -m pip install -q -e "$spec"
  rm -f .venv/.installed-*
  touch "$stamp"
fi
