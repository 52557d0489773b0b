#!/bin/sh
# Builds tests/embed/embed.c against an installed ipfsrt found with pkg-config
# (PKG_CONFIG_PATH points at a staged install) and runs it on a fixture.
set -eu
BUILD=${BUILD:-build}
out="$BUILD/tests/embed"
mkdir -p "$BUILD/tests"
libdir=$(pkg-config --variable=libdir ipfsrt)
# shellcheck disable=SC2086 # pkg-config output is meant to be split
${CC:-cc} -std=c11 -Wall -Wextra -Werror ${EMBED_CFLAGS:-} tests/embed/embed.c -o "$out" \
    $(pkg-config --cflags --libs ipfsrt lua5.4) -Wl,-rpath,"$libdir"
# The same host with ipfsrt linked in statically (the system libraries shared),
# as the pkg-config file describes: it must not need libipfsrt.so at run time.
# shellcheck disable=SC2046
${CC:-cc} -std=c11 -Wall -Wextra -Werror ${EMBED_CFLAGS:-} tests/embed/embed.c -o "$out-static" \
    $(pkg-config --cflags ipfsrt) "$(pkg-config --variable=staticlib ipfsrt)" \
    $(pkg-config --libs $(pkg-config --variable=deps ipfsrt)) -lmbedcrypto -lbz2 -lm -pthread
if ldd "$out-static" | grep -q libipfsrt; then echo "embed: the static host needs libipfsrt.so" >&2; exit 1; fi
root=bafybeihjcinxwvt7yho4ukgcftiwrpwqd5mvc4ibnycf4crsgw2fh5ykju # ipfs-car's root for the fixture
# (linked in, the library cannot tell where it was installed: the host says where the policies are)
IPFSRT_POLICY_PATH=$(pkg-config --variable=policydir ipfsrt) "$out-static" tests/fixtures/ipfs-car-small.car "$root" |
    grep -q "lua client read 12 verified bytes"
echo "embed: statically linked host: ok"
result=$("$out" tests/fixtures/ipfs-car-small.car "$root")
echo "$result"
case "$result" in
*"5 blocks (1977 bytes) verified"*"lua sees 1 root(s), first $root"*"lua client read 12 verified bytes with policies failover and inline"*) echo "embed: ok" ;;
*) echo "embed: unexpected output" >&2; exit 1 ;;
esac
# A host reading a Zarr selection over ipfs:// with the C API alone.
${CC:-cc} -std=c11 -Wall -Wextra -Werror ${EMBED_CFLAGS:-} tests/embed/zarr_embed.c -o "$out-zarr" \
    $(pkg-config --cflags --libs ipfsrt) -Wl,-rpath,"$libdir"
rm -rf "$BUILD/tests/zarr-embed"
result=$("$out-zarr" "$BUILD/tests")
echo "$result"
case "$result" in
*"shape 4x4: 100 103 106 -1 200 203 206 -1 300 303 306 -1 400 403 406 409") echo "embed: zarr over ipfs:// with the C API: ok" ;;
*) echo "embed: unexpected zarr output" >&2; exit 1 ;;
esac
# A tampered CAR must make the host see an error, not data.
bad="$BUILD/tests/embed-bad.car"
sed 's/hello world/hello_world/' tests/fixtures/ipfs-car-small.car > "$bad"
if "$out" "$bad" "$root" 2>"$BUILD/tests/embed-bad.err"; then
    echo "embed: tampered CAR was accepted" >&2; exit 1
fi
grep -q hash_mismatch "$BUILD/tests/embed-bad.err"
echo "embed: tampered CAR rejected: $(cat "$BUILD/tests/embed-bad.err")"

# The installed executable finds its installed Lua modules; a stock lua5.4 loads the module.
prefix=$(pkg-config --variable=prefix ipfsrt)
"$prefix/bin/ipfsrt" --help | grep -q '^  car ' || { echo "installed ipfsrt lacks its subcommands" >&2; exit 1; }
"$prefix/bin/ipfsrt" car verify tests/fixtures/ipfs-car-small.car
# A stock lua5.4 that only knows where the C module is: the pure-Lua modules
# (client, policy loading) come with it, and the installed policies are found.
# LUA_PRELOAD names the sanitizer runtimes a sanitized module needs loaded first.
LD_PRELOAD="${LUA_PRELOAD:-}" lua5.4 -e "package.cpath='$prefix/lib/lua/5.4/?.so'; local i = require 'ipfsrt';
    assert(#i.car.open('tests/fixtures/ipfs-car-small.car'):roots() == 1)
    assert(i.policy_dir == '$prefix/lib/lua/5.4/../../../share/ipfsrt/policies', i.policy_dir)
    local gw = i.serve{cars = {'tests/fixtures/ipfs-car-small.car'}}
    local c = i.client{gateways = {gw:url()}, policy = 'trust', cache = false}
    assert(c:get('ipfs://$root/hello.txt') == 'hello world\\n')
    c:close(); gw:stop()
    print('lua5.4 require, client and named policy: ok')"
# Where Lua looks for modules: the installed pure-Lua files load through package.path too.
LUA_PATH="$prefix/share/lua/5.4/?.lua;;" lua5.4 -e "assert(package.searchpath('ipfsrt.policy', package.path))"
pkg-config --variable=luadir ipfsrt | grep -q "share/lua/5.4$"
test -f "$(pkg-config --variable=policydir ipfsrt)/trust.lua"
