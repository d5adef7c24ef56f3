#!/usr/bin/env bash
# Regenerates docs/audit.md: the reward-hack audit of every built-in environment (gym env audit --all).
# Exit status is the audit's (4 when a probe is rewarded above its floor); the report is written either way.
set -uo pipefail
cd "$(dirname "$0")/.."
npm run build --silent
node dist/cli/main.js env audit --all --rows "${AUDIT_ROWS:-2}" --report docs/audit.md
status=$?
# Paths in error messages relative to the checkout, so the report does not depend on where it ran.
sed -i "s#$(pwd)/##g" docs/audit.md
exit "$status"
