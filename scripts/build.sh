#!/usr/bin/env bash
# The one build of Switchyard, used by the Dockerfile and by CI alike: install exactly the lockfile,
# compile to dist/, and (with --production) drop the development packages the server does not need.
#
#   scripts/build.sh                 install every package and compile (CI, development)
#   scripts/build.sh --production    the same, then prune dev packages (what the image ships)
set -euo pipefail
cd "$(dirname "$0")/.."

production=false
for arg in "$@"; do
  case "$arg" in
    --production) production=true ;;
    -h | --help)
      sed -n '2,6p' "$0" | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    *)
      echo "scripts/build.sh: unknown option $arg (use --production or --help)" >&2
      exit 64
      ;;
  esac
done

# Warnings shown, progress noise not; --foreground-scripts prints the native build of better-sqlite3
# as it goes (it takes minutes).
echo "==> npm ci (exactly package-lock.json; better-sqlite3 compiles from source)"
npm ci --loglevel=warn --foreground-scripts

echo "==> npm run build (TypeScript to dist/)"
rm -rf dist
npm run build --loglevel=warn

if [ "$production" = true ]; then
  echo "==> npm prune --omit=dev (production packages only)"
  npm prune --omit=dev --loglevel=warn
fi
echo "==> built dist/src/main.js"
