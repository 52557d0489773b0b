#!/bin/sh
# s3:// stores against a local S3: s3rver behind tests/s3/front.js, which
# checks SigV4 signatures (aws4) and injects S3's failures (npm, versions
# pinned in tests/s3/package-lock.json). Needs Node.js and npm; says so when
# they are absent. Usage: BUILD=DIR tests/s3/run.sh
set -eu
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
    echo "test-s3: SKIPPED, Node.js/npm not installed (apt-get install nodejs npm)"
    exit 0
fi
[ -d tests/s3/node_modules ] || npm ci --prefix tests/s3 --no-audit --no-fund --loglevel=error
IPFSRT_BUILD=$BUILD "$BUILD/ipfsrt" /usr/bin/busted -o utfTerminal tests/s3/s3_spec.lua
