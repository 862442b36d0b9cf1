#!/usr/bin/env bash
# Puts a Chromium on PATH for the headless report test (crates/regionkv-cli/tests/lab_report.rs).
#
# Idempotent: when `chromium` or `chromium-browser` is already on PATH it prints that path
# and exits 0. Otherwise, as root on a Debian-like system, it installs the `chromium`
# package with apt-get (refreshing the package lists only when they are missing or stale).
# When it cannot (not root, no apt-get, no network) it exits non-zero saying what to
# install, so the test that runs it fails with the reason instead of skipping.
set -euo pipefail

find_chromium() {
    local name
    for name in chromium chromium-browser; do
        if command -v "$name" >/dev/null 2>&1; then
            command -v "$name"
            return 0
        fi
    done
    return 1
}

if path="$(find_chromium)"; then
    echo "$path"
    exit 0
fi

fail() {
    echo "install-chromium.sh: $1" >&2
    echo "install-chromium.sh: install Chromium yourself so that \`chromium\` (or \`chromium-browser\`) is on PATH," >&2
    echo "install-chromium.sh: e.g. \`sudo apt-get install chromium\` on Debian, \`sudo apt-get install chromium-browser\` on Ubuntu," >&2
    echo "install-chromium.sh: \`sudo dnf install chromium\` on Fedora, \`brew install --cask chromium\` on macOS." >&2
    exit 1
}

if [ "$(id -u)" -ne 0 ]; then
    fail "chromium is not on PATH and this is not root, so apt-get cannot install it"
fi
if ! command -v apt-get >/dev/null 2>&1; then
    fail "chromium is not on PATH and there is no apt-get here to install it with"
fi

export DEBIAN_FRONTEND=noninteractive
# `apt-get update` only when the lists do not know the package yet: it is the slow step,
# and a second run (or a machine whose lists are fresh) does not need it.
if ! apt-cache show chromium >/dev/null 2>&1; then
    apt-get update -qq || fail "apt-get update failed (no network, or no reachable package mirror)"
fi
if ! apt-get install -y -qq chromium >/dev/null; then
    # A list can be stale (a package version the mirror no longer has): refresh once and retry.
    apt-get update -qq || fail "apt-get update failed (no network, or no reachable package mirror)"
    apt-get install -y -qq chromium >/dev/null || fail "apt-get install chromium failed"
fi

if path="$(find_chromium)"; then
    echo "$path"
    exit 0
fi
fail "apt-get installed the chromium package but no chromium binary is on PATH"
