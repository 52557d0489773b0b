-- An independent verifying client against `ipfsrt serve`: @helia/verified-fetch
-- (Node 22), with the local gateway as its only source, fetches every file of a
-- tree packed by ipfs-car and must get the original bytes; then again through
-- `ipfsrt serve --upstream` in front of that gateway (the proxy's raw and CAR
-- answers, which verified-fetch checks itself); and by an IPNS name ipfsrt
-- published, its record served by `ipfsrt serve --ipns-records`.
-- Usage: ipfsrt verified-fetch.lua WORKDIR IPFS_CAR NODE22 [IPFSRT_EXE]
local ipfsrt = require "ipfsrt"

local work, ipfs_car, node, exe = arg[1], arg[2], arg[3], arg[4] or "build/ipfsrt"
assert(work and ipfs_car and node, "usage: verified-fetch.lua WORKDIR IPFS_CAR NODE22 [IPFSRT_EXE]")

-- the lua-exe specs' helpers: shell commands, and the proxy as a process of its own
package.path = arg[0]:gsub("[^/]*$", "") .. "../lua-exe/?.lua;" .. package.path
local exe_helpers = require "exe"
local sh = exe_helpers.sh

local function hex(s) return (s:gsub(".", function(c) return string.format("%02x", c:byte()) end)) end

sh("rm -rf '" .. work .. "' && mkdir -p '" .. work .. "/tree/sub/deeper'")
local files = {
  ["hello.txt"] = "hello from ipfsrt serve\n",
  ["sub/small.bin"] = string.rep("\1\2\3", 1000),
  ["sub/deeper/multi.bin"] = io.open("/dev/urandom", "rb"):read(3 * 1048576 + 17), -- 4 chunks
  ["sub/ünïcödé.txt"] = "non-ASCII name\n",
}
for rel, data in pairs(files) do
  local f = assert(io.open(work .. "/tree/" .. rel, "wb"))
  f:write(data)
  f:close()
end
local car = work .. "/tree.car"
local root = sh("'" .. ipfs_car .. "' pack '" .. work .. "/tree' --output '" .. car .. "'"):match("([^\n]+)\n?$")

local gw <close> = ipfsrt.serve { cars = { car }, log = work .. "/gateway.log" }
local paths = {}
for rel in pairs(files) do paths[#paths + 1] = rel end
table.sort(paths)
local quoted = {}
for i, p in ipairs(paths) do quoted[i] = "'" .. p .. "'" end
local script = arg[0]:gsub("[^/]*$", "") .. "verified-fetch/fetch.mjs"
local passed, failed = 0, 0

-- Every file under target (the root CID, or ipns://NAME) through gateway url,
-- checked against the original bytes.
local function fetch_all(url, via, target)
  local out = sh(string.format("timeout 120 '%s' '%s' '%s' '%s' %s", node, script, url, target or root,
    table.concat(quoted, " ")))
  local got = ipfsrt.json.decode(out:match("(%b{})%s*$"))
  for _, p in ipairs(paths) do
    local want = hex(ipfsrt.multihash.decode(ipfsrt.multihash.sum("sha2-256", files[p])).digest)
    local g = got[p]
    if g and g.status == 200 and g.length == #files[p] and g.sha256 == want then
      passed = passed + 1
      print("ok   verified-fetch " .. via .. " " .. p .. " (" .. #files[p] .. " bytes)")
    else
      failed = failed + 1
      print("FAIL verified-fetch " .. via .. " " .. p .. ": " .. ipfsrt.json.encode(g or {}))
    end
  end
end

fetch_all(gw:url(), "from ipfsrt serve:")
-- the same tree by an IPNS name ipfsrt published: Helia finds the record at the
-- gateway and verifies it itself
local keystore = work .. "/keys"
ipfsrt.name.keygen("tree", { keystore = keystore })
local records = work .. "/records"
sh("mkdir -p '" .. records .. "'")
local published = ipfsrt.name.publish("/ipfs/" .. root, { key = "tree", keystore = keystore })
local f = assert(io.open(records .. "/" .. published.name .. ".ipns-record", "wb"))
f:write(published.record)
f:close()
local named <close> = ipfsrt.serve { cars = { car }, ipns_records = records }
fetch_all(named:url(), "by ipns:// from ipfsrt serve:", "ipns://" .. published.name)
local proxy, stop_proxy = exe_helpers.start_serve({ "-q", "--upstream", gw:url() }, exe)
fetch_all(proxy, "through ipfsrt serve --upstream:")
stop_proxy()
local st = gw:stats()
print(string.format("the gateway answered %d requests", st.requests))
print(string.format("verified-fetch interop: %d passed, %d failed", passed, failed))
os.exit(failed == 0 and passed == 3 * #paths and 0 or 1)
