#!/bin/sh
# The Debian packages ipfsrt needs, installed when missing (as root; otherwise
# the missing ones are named and this fails). Usage: scripts/deps.sh [SET...]
#   build   compilers and the libraries the build links (the default)
#   test    build, and what the tests run: cmocka, busted, the peers, valgrind...
#   tsan    test, and clang (ThreadSanitizer, libFuzzer)
#   bench   wrk, nginx, time and xarray's HTTP and NetCDF readers
#   peers   bench's Python peers (boto3, dask)
set -eu
build="gcc libc6-dev make pkg-config lua5.4 liblua5.4-dev libcurl4-openssl-dev libssl-dev libmbedtls-dev
       libcjson-dev libzstd-dev zlib1g-dev libblosc-dev liblz4-dev libbz2-dev libpng-dev
       libmicrohttpd-dev libarchive-dev libsodium-dev libexpat1-dev libhdf5-dev libnetcdf-dev libyajl-dev groff-base python3-dev"
test="$build libcmocka-dev lua-busted curl openssl abigail-tools doxygen valgrind nghttp2-proxy
      python3-numpy python3-zarr python3-xarray python3-scipy python3-cftime python3-fsspec python3-aiohttp
      python3-jinja2 python3-netcdf4 python3-h5py python3-pytest python3-dask python3-distributed openmpi-bin
      libopenmpi-dev chromium iproute2"
want=""
for set in "${@:-build}"; do
    case "$set" in
    build) want="$want $build" ;;
    test) want="$want $test" ;;
    tsan) want="$want $test clang" ;;
    bench) want="$want $build wrk nginx-light time python3-aiohttp python3-dask python3-h5netcdf" ;;
    peers) want="$want $build python3-aiohttp python3-boto3 python3-dask" ;;
    *) echo "deps.sh: unknown set $set (build, test, tsan, bench, peers)" >&2; exit 2 ;;
    esac
done
missing=""
for p in $want; do
    case " $missing " in *" $p "*) continue ;; esac
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $p"
done
[ -n "$missing" ] || exit 0
if [ "$(id -u)" != 0 ]; then
    echo "missing Debian packages:$missing (run scripts/deps.sh ${*:-build} as root)" >&2
    exit 1
fi
echo "installing:$missing"
apt-get update -q
DEBIAN_FRONTEND=noninteractive apt-get install -y -q $missing
