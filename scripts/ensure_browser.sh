#!/usr/bin/env bash
# Makes sure Debian's Chromium is at /usr/bin/chromium for the browser end-to-end tests.
# Playwright's own browser download cannot be used here (no network but the package registries),
# so the tests launch the distribution's Chromium.
set -euo pipefail
exec bash "$(dirname "$0")/ensure_debian_packages.sh" ensure_browser /usr/bin/chromium chromium fonts-liberation
