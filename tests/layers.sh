#!/bin/sh
# Checks that the C sources keep to their layers: a file under runtime/src/LAYER/
# includes public headers (ipfsrt/MODULE.h) and internal ones (LAYER2/...) only of
# its own layer and the ones below. Arguments: the layers, lowest first.
set -eu
cd "$(dirname "$0")/.."
# the layer of each public header's module
layer_of_header() {
    case "$1" in
    base|error|buf|hash) echo base ;;
    ndarray) echo ndarray ;;
    codec) echo codec ;;
    image) echo image ;;
    netcdf) echo netcdf ;;
    varint|multibase|multihash|cid|path) echo multiformats ;;
    dagcbor|dagpb|ipld) echo ipld ;;
    ipns) echo ipns ;;
    blocksource|ranges) echo store ;;
    car) echo car ;;
    unixfs|pack|patch) echo unixfs ;;
    s3) echo s3 ;;
    client) echo client ;;
    zarr|zarr_store) echo zarr ;;
    refs) echo refs ;;
    server) echo server ;;
    *) echo "unknown public header ipfsrt/$1.h" >&2; echo none ;;
    esac
}
rank() { # position of a layer in the arguments
    i=0
    for l in $LAYERS; do i=$((i + 1)); [ "$l" = "$1" ] && { echo $i; return; }; done
    echo 999
}
LAYERS="$*"
bad=0 checked=0
for layer in $LAYERS; do
    mine=$(rank "$layer")
    for f in runtime/src/"$layer"/*.c runtime/src/"$layer"/*.h; do
        [ -e "$f" ] || continue
        checked=$((checked + 1))
        for inc in $(sed -n 's/^#include "\(.*\)"/\1/p' "$f"); do
            case "$inc" in
            ipfsrt/*.h) m=${inc#ipfsrt/}; dep=$(layer_of_header "${m%.h}") ;;
            ipfsrt.h) dep=top ;;
            */*) dep=${inc%%/*} ;;
            *) echo "$f: includes \"$inc\" without its layer's folder"; bad=1; continue ;;
            esac
            if [ "$(rank "$dep")" -gt "$mine" ]; then
                echo "$f ($layer) includes $inc ($dep): a higher layer"
                bad=1
            fi
        done
    done
done
[ "$bad" = 0 ] || exit 1
echo "layers: $checked files keep to $(echo $LAYERS | tr ' ' '<')"
