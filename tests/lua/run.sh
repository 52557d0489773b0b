#!/bin/sh
# The Lua-level specs under a stock lua5.4 loading the C module BUILD/ipfsrt.so
# (SAN_LIBS: the sanitizer runtimes a sanitized module needs loaded first).
# Usage: BUILD=DIR [SAN_LIBS=...] tests/lua/run.sh
set -eu
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
IPFSRT_BUILD=$BUILD LD_PRELOAD="${SAN_LIBS:-}" lua5.4 /usr/bin/busted -o utfTerminal \
    --cpath="$BUILD/?.so" --lpath='lua/?.lua;lua/?/init.lua;tests/lua/?.lua' tests/lua
