#!/bin/sh
# The browser tests drive the system's Chromium (Debian's package) with Playwright, whose
# own browser download cannot be used here. Install it when missing; nothing to do when
# it is there. Needs root (or sudo) the first time, as apt-get does.
set -eu
if command -v chromium >/dev/null 2>&1; then
    exit 0
fi
echo "chromium is missing: installing it from the distribution's packages (for the browser tests)"
if [ "$(id -u)" -eq 0 ]; then
    SUDO=""
elif command -v sudo >/dev/null 2>&1; then
    SUDO="sudo"
else
    echo "cannot install chromium: run 'apt-get install chromium' as root, then 'make test' again" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends chromium >/dev/null
command -v chromium >/dev/null 2>&1 || { echo "chromium did not install" >&2; exit 1; }
echo "installed: $(chromium --version 2>/dev/null || echo chromium)"
