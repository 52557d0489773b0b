#!/bin/sh
# The same runner as tests/lua, hosted by the ipfsrt executable itself; these
# specs also run the CLI, local gateways and the network emulator.
# Usage: BUILD=DIR [SAN=1|thread] tests/lua-exe/run.sh [SPEC...]
set -eu
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
[ $# -gt 0 ] || set -- tests/lua-exe
IPFSRT_BUILD=$BUILD IPFSRT_SAN=${SAN:-} "$BUILD/ipfsrt" /usr/bin/busted -o utfTerminal \
    --lpath='tests/lua-exe/?.lua' "$@"
