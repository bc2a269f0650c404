#!/usr/bin/env bash
# Makes sure Debian's PgBouncer is at /usr/sbin/pgbouncer for the pooled end-to-end test
# (tests/e2e/test_pgbouncer.py), which starts its own pgbouncer on a free port with its own config.
# Idempotent: a present binary is left alone. Debian's package also registers a pgbouncer service on
# 6432, which the tests never use (apt-get does not start it on a machine without systemd).
set -euo pipefail
exec bash "$(dirname "$0")/ensure_debian_packages.sh" ensure_pgbouncer /usr/sbin/pgbouncer pgbouncer
