#!/usr/bin/env bash
# Makes sure Debian's Chromium is at /usr/bin/chromium for the browser end-to-end tests.
# Playwright's own browser download cannot be used here (no network but the package registries),
# so the tests launch the distribution's Chromium; this installs it with apt when it is missing.
set -euo pipefail

BROWSER=/usr/bin/chromium

if [[ -x "$BROWSER" ]]; then
    echo "ensure_browser: $BROWSER present ($("$BROWSER" --version 2>/dev/null || echo 'version unknown'))"
    exit 0
fi

if [[ "$(id -u)" -ne 0 ]]; then
    echo "ensure_browser: $BROWSER is missing and this is not root; install it with:" >&2
    echo "    sudo apt-get update && sudo apt-get install -y chromium" >&2
    exit 1
fi

if ! command -v apt-get >/dev/null 2>&1; then
    echo "ensure_browser: $BROWSER is missing and apt-get is not available" >&2
    exit 1
fi

echo "ensure_browser: $BROWSER missing; installing Debian's chromium package with apt-get"
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium fonts-liberation >/dev/null
if [[ ! -x "$BROWSER" ]]; then
    echo "ensure_browser: apt-get finished but $BROWSER is still missing" >&2
    exit 1
fi
echo "ensure_browser: installed $("$BROWSER" --version 2>/dev/null || echo chromium)"
