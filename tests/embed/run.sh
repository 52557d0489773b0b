#!/bin/sh
# Hosts built against an installed ipfsrt found with pkg-config (PKG_CONFIG_PATH
# points at a staged install): a C-only host (pkg-config ipfsrt: no Lua on its
# link line or in what it needs), a host running Lua scripts and policies
# (pkg-config ipfsrt-lua), each linked shared and static, and a host with
# functions named like the library's own.
set -eu
BUILD=${BUILD:-build}
out="$BUILD/tests/embed"
mkdir -p "$BUILD/tests"
libdir=$(pkg-config --variable=libdir ipfsrt)
cflags="-std=c11 -Wall -Wextra -Werror ${EMBED_CFLAGS:-}"
# Linked statically, the system libraries shared, as the .pc files describe:
# the archives of the packages given (the core's last), then their libraries.
static_of() {
    for pc in "$@"; do printf '%s ' "$(pkg-config --variable=staticlib "$pc")"; done
    for pc in "$@"; do
        # shellcheck disable=SC2046
        printf '%s ' $(pkg-config --libs $(pkg-config --variable=deps "$pc")) $(pkg-config --variable=privatelibs "$pc")
    done
}
static_core() { static_of ipfsrt; }
modules="ipfsrt-server ipfsrt-s3 ipfsrt-netcdf"
no_lua() { # a binary that must not need an interpreter
    if readelf -d "$1" | grep -q 'NEEDED.*lua'; then echo "embed: $1 needs Lua" >&2; exit 1; fi
    if nm -D "$1" | grep -q ' U lua'; then echo "embed: $1 refers to the Lua API" >&2; exit 1; fi
}

# 1. A host reading a Zarr selection over ipfs:// and from a CAR with the
#    core alone: pkg-config ipfsrt, no Lua and no module (the gateway it reads
#    through is the installed ipfsrt serve).
prefix=$(pkg-config --variable=prefix ipfsrt)
case " $(pkg-config --libs ipfsrt) $(pkg-config --libs --static ipfsrt) " in
*lua*|*microhttpd*|*hdf5*|*netcdf*|*expat*|*yajl*) echo "embed: pkg-config ipfsrt names a module's library" >&2; exit 1 ;;
esac
# shellcheck disable=SC2046 # pkg-config output is meant to be split
${CC:-cc} $cflags tests/embed/zarr_embed.c -o "$out-zarr" $(pkg-config --cflags --libs ipfsrt) -Wl,-rpath,"$libdir"
# shellcheck disable=SC2046
${CC:-cc} $cflags tests/embed/zarr_embed.c -o "$out-zarr-static" $(pkg-config --cflags ipfsrt) $(static_core)
no_lua "$out-zarr"
no_lua "$out-zarr-static"
if ldd "$out-zarr-static" | grep -q libipfsrt; then echo "embed: the static host needs libipfsrt.so" >&2; exit 1; fi
# What the core host loads: libipfsrt, what libipfsrt names (10 at most) and
# what those need; libcurl's own closure (Debian's links 31: TLS, IDN, LDAP,
# Kerberos, SSH, RTMP, PSL) is most of it and not ours to trim.
loaded=$(ldd "$out-zarr" | awk '{print $1}' | sort)
{ echo libipfsrt.so.2; ldd "$libdir/libipfsrt.so" | awk '{print $1}'; } | sort -u > "$BUILD/tests/embed-allowed"
extra=$(echo "$loaded" | comm -23 - "$BUILD/tests/embed-allowed")
[ -z "$extra" ] || { echo "embed: the core host loads more than libipfsrt needs: $extra" >&2; exit 1; }
for lib in liblua libpng libmicrohttpd libhdf5 libnetcdf libexpat libyajl libmbedcrypto; do
    if echo "$loaded" | grep -q "^$lib"; then echo "embed: the core host loads $lib" >&2; exit 1; fi
done
echo "embed: the core host loads $(echo "$loaded" | wc -l) shared libraries ($(ldd "$libdir/libipfsrt.so" |
    grep -c 'libcurl\|libnghttp2\|libidn2\|librtmp\|libssh2\|libpsl\|libssl\|libgssapi\|libldap\|liblber\|libbrotli\|libunistring\|libgnutls\|libhogweed\|libnettle\|libgmp\|libkrb5\|libk5crypto\|libcom_err\|libsasl2\|libp11\|libtasn1\|libkeyutils\|libresolv\|libffi') of them libcurl's)"
want="shape 4x4: 100 103 106 -1 200 203 206 -1 300 303 306 -1 400 403 406 409"
zcar="$BUILD/tests/zarr-embed.car"
for host in "$out-zarr" "$out-zarr-static"; do
    rm -rf "$BUILD/tests/zarr-embed"
    result=$("$host" "$BUILD/tests")
    echo "$result"
    case "$result" in
    *"from the CAR (verified), $want") ;;
    *) echo "embed: unexpected zarr output from $host" >&2; exit 1 ;;
    esac
    zroot=$(echo "$result" | sed -n 's/^root //p')
    served="$BUILD/tests/zarr-serve.url"
    rm -f "$served"
    "$prefix/bin/ipfsrt" serve "$zcar" > "$served" 2>/dev/null &
    serve_pid=$!
    for _ in $(seq 40); do [ -s "$served" ] && break; sleep 0.5; done # a loaded machine starts it slowly
    got=$("$host" "$BUILD/tests" "$(head -1 "$served")" "$zroot") || true
    kill "$serve_pid"
    case "$got" in
    *"over ipfs:// (verified), $want") echo "$got" ;;
    *) echo "embed: $host over ipfs://: $got" >&2; exit 1 ;;
    esac
done
echo "embed: a core-only host (shared and static, no Lua, no module) reads Zarr over ipfs:// and from a CAR: ok"

# 2. A host with its own Lua state: pkg-config ipfsrt-lua.
root=bafybeihjcinxwvt7yho4ukgcftiwrpwqd5mvc4ibnycf4crsgw2fh5ykju # ipfs-car's root for the fixture
# shellcheck disable=SC2046
${CC:-cc} $cflags tests/embed/embed.c -o "$out" $(pkg-config --cflags --libs ipfsrt-lua) -Wl,-rpath,"$libdir"
# shellcheck disable=SC2046
${CC:-cc} $cflags tests/embed/embed.c -o "$out-static" $(pkg-config --cflags ipfsrt-lua) \
    $(static_of ipfsrt-lua $modules ipfsrt)
if ldd "$out-static" | grep -q libipfsrt; then echo "embed: the static host needs libipfsrt.so" >&2; exit 1; fi
# (linked in, the library cannot tell where it was installed: the host says where the policies are)
IPFSRT_POLICY_PATH=$(pkg-config --variable=policydir ipfsrt-lua) "$out-static" tests/fixtures/ipfs-car-small.car "$root" |
    grep -q "lua client read 12 verified bytes"
echo "embed: statically linked Lua host: ok"
result=$("$out" tests/fixtures/ipfs-car-small.car "$root" tests/embed/analysis.lua "$BUILD/tests/zarr-embed")
echo "$result"
case "$result" in
*"5 blocks (1977 bytes) verified"*"lua sees 1 root(s), first $root"*"lua client read 12 verified bytes with policies failover and inline"*"row means 2.6 82.6 162.6 242.6 404.5 504.5, mean without fill 269.2692"*"host took a float64 array of 6 values from Lua: 2.6 82.6 162.6 242.6 404.5 504.5") echo "embed: ok" ;;
*) echo "embed: unexpected output" >&2; exit 1 ;;
esac
# A C host with no Lua code of its own loads a gateway policy file written in
# Lua (ipfsrt_lua_policy_new), on a state of the policy's own and then on the
# host's: the policy catches the lying gateway on its first answer, and the
# liar is asked once per client.
# shellcheck disable=SC2046
${CC:-cc} $cflags tests/embed/policy_host.c -o "$out-policy" $(pkg-config --cflags --libs ipfsrt-lua) \
    -Wl,-rpath,"$libdir"
result=$("$out-policy" tests/fixtures/ipfs-car-small.car "$root" tests/embed/catch_liar.lua)
echo "$result"
for state in "own state" "host's state"; do
    echo "$result" | grep -q "^policy ($state): caught http://127.0.0.1:[0-9]* on attempt 1 (hash_mismatch)$" ||
        { echo "embed: the Lua policy on its $state did not catch the liar" >&2; exit 1; }
done
[ "$(echo "$result" | grep -c '^read 12 verified bytes: hello world$')" = 2 ] &&
    echo "$result" | grep -qx "the liar was asked 2 times, for four reads" ||
    { echo "embed: unexpected output from the policy host" >&2; exit 1; }
echo "embed: a C host with a Lua policy file catches the liar: ok"
# A policy that loops fails the host's read (its budget per call), never hangs it.
if timeout 60 "$out-policy" tests/fixtures/ipfs-car-small.car "$root" tests/embed/loops.lua \
    2>"$BUILD/tests/embed-loops.err"; then
    echo "embed: a looping policy did not fail the read" >&2; exit 1
fi
grep -q "read: bad_policy: .*order failed: ran over its budget" "$BUILD/tests/embed-loops.err" ||
    { cat "$BUILD/tests/embed-loops.err" >&2; echo "embed: a looping policy was not named" >&2; exit 1; }
echo "embed: a looping Lua policy fails the C host's read: ok"
# A tampered CAR must make the host see an error, not data.
bad="$BUILD/tests/embed-bad.car"
sed 's/hello world/hello_world/' tests/fixtures/ipfs-car-small.car > "$bad"
if "$out" "$bad" "$root" 2>"$BUILD/tests/embed-bad.err"; then
    echo "embed: tampered CAR was accepted" >&2; exit 1
fi
grep -q hash_mismatch "$BUILD/tests/embed-bad.err"
echo "embed: tampered CAR rejected: $(cat "$BUILD/tests/embed-bad.err")"

# 3. A host whose own functions carry names of the library's internals (and,
#    shared, of a public function): the library keeps calling its own.
# shellcheck disable=SC2046
${CC:-cc} $cflags -DOWN_PUBLIC_NAME -rdynamic tests/embed/own_names.c -o "$out-names" \
    $(pkg-config --cflags --libs ipfsrt) -Wl,-rpath,"$libdir"
# shellcheck disable=SC2046
${CC:-cc} $cflags tests/embed/own_names.c -o "$out-names-static" $(pkg-config --cflags ipfsrt) $(static_core)
"$out-names" tests/fixtures/ipfs-car-small.car
"$out-names-static" tests/fixtures/ipfs-car-small.car

# 4. The installed examples build and run against the installed prefix: the C
#    one from a CAR and over ipfs:// through the installed gateway, a Lua one.
examples=$(pkg-config --variable=prefix ipfsrt)/share/ipfsrt/examples
# shellcheck disable=SC2046
${CC:-cc} $cflags "$examples/read_zarr.c" -o "$out-example" $(pkg-config --cflags --libs ipfsrt) -Wl,-rpath,"$libdir"
zcar="$BUILD/tests/zarr-embed.car"
want_line="temp: int32, shape 6 x 10; mean of its first 10 values (verified): 2.6"
"$out-example" "$zcar/temp" | grep -qxF "$want_line" || { echo "embed: read_zarr.c from the CAR" >&2; exit 1; }
served="$BUILD/tests/example-serve.url"
rm -f "$served" # the background job truncates it later: an old URL would be read first
"$(pkg-config --variable=prefix ipfsrt)/bin/ipfsrt" serve "$zcar" > "$served" 2>/dev/null &
serve_pid=$!
for _ in $(seq 40); do [ -s "$served" ] && break; sleep 0.5; done # a loaded machine starts it slowly
zroot=$("$(pkg-config --variable=prefix ipfsrt)/bin/ipfsrt" car roots "$zcar")
got=$("$out-example" "ipfs://$zroot/temp" "$(head -1 "$served")") || true
kill "$serve_pid"
[ "$got" = "$want_line" ] || { echo "embed: read_zarr.c over ipfs://: $got" >&2; exit 1; }
"$(pkg-config --variable=prefix ipfsrt)/bin/ipfsrt" "$examples/fetch_verified.lua" tests/fixtures/ipfs-car-small.car |
    grep -q "verified" || { echo "embed: the installed Lua example" >&2; exit 1; }
echo "embed: the installed C and Lua examples build and run: ok"

# The installed executable finds its installed Lua modules; a stock lua5.4 loads the module.
prefix=$(pkg-config --variable=prefix ipfsrt)
"$prefix/bin/ipfsrt" --help | grep -q '^  car ' || { echo "installed ipfsrt lacks its subcommands" >&2; exit 1; }
"$prefix/bin/ipfsrt" car verify tests/fixtures/ipfs-car-small.car
# A stock lua5.4 that only knows where the C module is: the pure-Lua modules
# (client, policy loading) come with it, and the installed policies are found.
# LUA_PRELOAD names the sanitizer runtimes a sanitized module needs loaded first.
LD_PRELOAD="${LUA_PRELOAD:-}" lua5.4 -e "package.cpath='$prefix/lib/lua/5.4/?.so'; local i = require 'ipfsrt';
    assert(#i.car.open('tests/fixtures/ipfs-car-small.car'):roots() == 1)
    assert(ipfsrt == i, 'require sets the global ipfsrt, as the executable does')
    assert(i.policy_dir == '$prefix/lib/lua/5.4/../../../share/ipfsrt/policies', i.policy_dir)
    local gw = i.serve{cars = {'tests/fixtures/ipfs-car-small.car'}}
    local c = i.client{gateways = {gw:url()}, policy = 'trust', cache = false}
    assert(c:get('ipfs://$root/hello.txt') == 'hello world\\n')
    c:close(); gw:stop()
    print('lua5.4 require, client and named policy: ok')"
# Where Lua looks for modules: the installed pure-Lua files load through package.path too.
LUA_PATH="$prefix/share/lua/5.4/?.lua;;" lua5.4 -e "assert(package.searchpath('ipfsrt.policy', package.path))"
pkg-config --variable=luadir ipfsrt-lua | grep -q "share/lua/5.4$"
test -f "$(pkg-config --variable=policydir ipfsrt-lua)/trust.lua"

# Misuse answered, never a crash (tests/embed/misuse.c); and the hosts above
# under valgrind's memcheck, any error failing (not in sanitized builds, which
# memcheck cannot run).
# shellcheck disable=SC2046
${CC:-cc} $cflags tests/embed/misuse.c -o "$out-misuse" $(pkg-config --cflags --libs ipfsrt) -Wl,-rpath,"$libdir"
"$out-misuse"
# Every entry point of every installed header (but lua.h) called with NULLs
# and zeros, each in a child of its own: answered, never a crash.
lua5.4 tests/embed/nulls.lua "$(pkg-config --variable=includedir ipfsrt)" "$BUILD/tests/embed-nulls.c"
# shellcheck disable=SC2046
${CC:-cc} ${EMBED_CFLAGS:-} -std=c11 -D_DEFAULT_SOURCE "$BUILD/tests/embed-nulls.c" -o "$out-nulls" \
    $(pkg-config --cflags --libs ipfsrt-lua) -Wl,-rpath,"$libdir"
"$out-nulls"
case "${EMBED_CFLAGS:-}" in
*sanitize*) echo "embed: memcheck not run (a sanitized build)" ;;
*)
    memcheck() { valgrind --error-exitcode=9 -q "$@" >/dev/null || { echo "embed: memcheck: $*" >&2; exit 1; }; }
    memcheck "$out-misuse"
    rm -rf "$BUILD/tests/zarr-embed"
    memcheck "$out-zarr" "$BUILD/tests"
    memcheck "$out" tests/fixtures/ipfs-car-small.car "$root" tests/embed/analysis.lua "$BUILD/tests/zarr-embed"
    memcheck "$out-policy" tests/fixtures/ipfs-car-small.car "$root" tests/embed/catch_liar.lua
    echo "embed: the misuse host, the Zarr, Lua and policy hosts: 0 memcheck errors" ;;
esac
