#!/bin/sh
# `npm run sandbox`: builds the dashboard the first time, then becomes the sandbox itself (exec), so that
# the SIGINT or SIGTERM npm passes on reaches the process that stops the gateway and saves the devnets.
# npm runs its scripts through sh, which would otherwise stay in between and die alone.
set -e
test -f dist/dashboard/index.html || npm run -s build:dashboard
exec node --import tsx src/sandbox/main.ts "$@"
