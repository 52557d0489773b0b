#!/bin/sh
# The cmocka unit tests given (built by make), each run from the repository's
# root with the fixtures at hand; extra environment (TSAN_OPTIONS) passes
# through. Usage: tests/unit/run.sh BINARY...
set -eu
cd "$(dirname "$0")/../.."
for t in "$@"; do
    echo "== $t"
    IPFSRT_FIXTURES=tests/fixtures "$t"
done
