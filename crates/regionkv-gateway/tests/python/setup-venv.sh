#!/usr/bin/env bash
# Creates (or reuses) the Python virtualenv the gateway tests run their real clients from:
# happybase 1.3.0 from PyPI (requirements.txt, pinned), and Python's standard library for
# the REST client. Idempotent: a venv whose installed packages match requirements.txt is
# left as it is. Installs python3 and python3-venv with apt-get when they are missing and
# this runs as root; otherwise says what to install and fails.
#
# Usage: setup-venv.sh VENV_DIR     (prints VENV_DIR/bin/python on success)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
venv="${1:?usage: setup-venv.sh VENV_DIR}"
req="$here/requirements.txt"
stamp="$venv/.requirements"

mkdir -p "$(dirname "$venv")"
# One setup at a time (test binaries may start together).
exec 9>"$venv.lock"
flock 9

if [[ -x "$venv/bin/python" && -f "$stamp" ]] && cmp -s "$stamp" "$req"; then
  echo "$venv/bin/python"
  exit 0
fi

have_venv() { command -v python3 >/dev/null 2>&1 && python3 -c 'import venv, ensurepip' >/dev/null 2>&1; }
if ! have_venv; then
  if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null 2>&1; then
    echo "setup-venv: installing python3 and python3-venv with apt-get" >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3 python3-venv >&2 ||
      { apt-get update -q >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3 python3-venv >&2; } ||
      { echo "setup-venv: ERROR: cannot install python3/python3-venv with apt-get" >&2; exit 1; }
  else
    echo "setup-venv: ERROR: python3 with the venv module is needed (Debian: apt-get install python3 python3-venv)" >&2
    exit 1
  fi
fi

rm -rf "$venv"
python3 -m venv "$venv" >&2 || { echo "setup-venv: ERROR: python3 -m venv $venv failed" >&2; exit 1; }
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$req" >&2 ||
  { echo "setup-venv: ERROR: pip could not install $req from PyPI (is PyPI reachable?)" >&2; exit 1; }
"$venv/bin/python" -c 'import happybase, thriftpy2' >&2 ||
  { echo "setup-venv: ERROR: happybase does not import after the install" >&2; exit 1; }
cp "$req" "$stamp"
echo "$venv/bin/python"
