#!/bin/sh
# ThreadSanitizer's runs, on a build made with SAN=thread: the unit tests
# given, the client's fault-injection specs, and tests/tsan/load.lua (a
# verified Zarr read of hundreds of chunks through local gateways under a
# hedged policy, and a write on several encoding threads) and soak.lua.
# Suppressions (tests/tsan/suppressions.txt) are for third-party libraries
# only, each with why. Usage: BUILD=DIR tests/tsan/run.sh UNIT_BINARY...
set -eu
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build-tsan}
TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$(pwd)/tests/tsan/suppressions.txt"
export TSAN_OPTIONS
sh tests/unit/run.sh "$@"
BUILD=$BUILD SAN=thread sh tests/lua-exe/run.sh tests/lua-exe/client_spec.lua tests/lua-exe/proxy_spec.lua
"$BUILD/ipfsrt" tests/tsan/load.lua "$BUILD/tsan-load"
"$BUILD/ipfsrt" tests/tsan/soak.lua "$BUILD/tsan-soak" "$BUILD/ipfsrt"
