#!/usr/bin/env bash
# The browser tests drive Debian's Chromium (Playwright's own download cannot be reached).
# Installs it when it is missing and we may (root, or passwordless sudo).
set -eu
if [ -x /usr/bin/chromium ]; then exit 0; fi
if [ "$(id -u)" = 0 ]; then SUDO=""; elif sudo -n true 2>/dev/null; then SUDO="sudo -n"; else
  echo "ensure-chromium: /usr/bin/chromium is missing and I cannot install it; browser tests will be skipped" >&2
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq chromium >/dev/null
