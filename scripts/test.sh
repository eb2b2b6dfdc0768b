#!/usr/bin/env bash
# npm test: lint, then the type check beside the test suite (it needs one core for a few seconds while
# vitest starts its devnets), failing when either fails. Arguments go to vitest.
set -uo pipefail
cd "$(dirname "$0")/.."

npm run -s lint || exit $?
npm run -s typecheck &
typecheck=$!
npx vitest run "$@"
tests=$?
wait "$typecheck"
types=$?
[ "$types" -ne 0 ] && echo "type check failed (exit $types)" >&2
[ "$tests" -ne 0 ] && exit "$tests"
exit "$types"
