#!/usr/bin/env bash
# The system packages the tests use, in one apt-get call: Debian's Chromium (the browser
# tests; Playwright's own download cannot be reached) and PostgreSQL and Redis (the
# cluster tests start their own servers on private ports and temporary data directories,
# tests/services.py; Debian's packages also start system-wide servers on the default
# ports, which the tests never use). Installs only what is missing, and only when we may
# (root, or passwordless sudo). One script, so that `make -j2` never starts two apt runs
# at once (dpkg takes one lock); apt-get still waits up to 5 minutes for a lock another
# program holds (unattended upgrades). `make system` runs it.
#
# Where each package is looked for can be changed (the tests do, to run this script
# against stubs): LOCKUP_CHROMIUM (default /usr/bin/chromium), LOCKUP_INITDB_GLOB
# (/usr/lib/postgresql/*/bin/initdb) and LOCKUP_REDIS_SERVER (redis-server, on PATH).
set -eu
chromium=${LOCKUP_CHROMIUM:-/usr/bin/chromium}
initdb_glob=${LOCKUP_INITDB_GLOB:-/usr/lib/postgresql/*/bin/initdb}
redis=${LOCKUP_REDIS_SERVER:-redis-server}

pkgs=""
[ -x "$chromium" ] || pkgs="$pkgs chromium"
# shellcheck disable=SC2086  # the glob is expanded on purpose
ls $initdb_glob >/dev/null 2>&1 || pkgs="$pkgs postgresql"
command -v "$redis" >/dev/null 2>&1 || pkgs="$pkgs redis-server"
if [ -z "$pkgs" ]; then exit 0; fi

if [ "$(id -u)" = 0 ]; then SUDO=""; elif sudo -n true 2>/dev/null; then SUDO="sudo -n"; else
  echo "ensure-system: missing:$pkgs, and I cannot install them (not root, no passwordless" \
    "sudo); the browser or cluster tests will be skipped" >&2
  exit 0
fi
echo "ensure-system: installing$pkgs" >&2
export DEBIAN_FRONTEND=noninteractive
APT="$SUDO apt-get -o DPkg::Lock::Timeout=300"
$APT update -qq
# shellcheck disable=SC2086  # one word per package
$APT install -y -qq $pkgs >/dev/null
