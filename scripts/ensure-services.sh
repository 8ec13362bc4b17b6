#!/usr/bin/env bash
# The cluster tests start their own PostgreSQL and Redis (Debian's packages, on private
# ports and temporary data directories; tests/services.py). Installs the packages when
# they are missing and we may (root, or passwordless sudo). Debian's packages also start
# system-wide servers on the default ports; the tests never use those.
set -eu
have_pg() { ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; }
have_redis() { command -v redis-server >/dev/null 2>&1; }
if have_pg && have_redis; then exit 0; fi
if [ "$(id -u)" = 0 ]; then SUDO=""; elif sudo -n true 2>/dev/null; then SUDO="sudo -n"; else
  echo "ensure-services: PostgreSQL or redis-server is missing and I cannot install them; the cluster tests will be skipped" >&2
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
pkgs=""
have_pg || pkgs="$pkgs postgresql"
have_redis || pkgs="$pkgs redis-server"
$SUDO apt-get install -y -qq $pkgs >/dev/null
