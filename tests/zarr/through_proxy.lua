-- zarrita through `ipfsrt serve --upstream`: the OISST-like sample (4 days,
-- Zarr v2) packed and served by an honest gateway and by one that tampers
-- with its answers; a proxy in front of both (the liar first) serves
-- zarrita's plain HTTP reads, and every array zarrita reads through it equals
-- what zarrita reads from the folder. The liar must have been asked and
-- caught (the proxy's closing report, -v, counts its verification failures).
-- Usage: ipfsrt through_proxy.lua WORKDIR NODE [IPFSRT_EXE]
local ipfsrt = require "ipfsrt"

local work, node, exe = arg[1], arg[2], arg[3] or "build/ipfsrt"
assert(work and node, "usage: through_proxy.lua WORKDIR NODE [IPFSRT_EXE]")
local here = arg[0]:gsub("[^/]*$", "")
package.path = here .. "../lua-exe/?.lua;" .. package.path
local exe_helpers = require "exe"
local start_serve, sh = exe_helpers.start_serve, exe_helpers.sh

local folder, car = work .. "/sample", work .. "/sample.car"
sh(string.format("rm -rf '%s' && mkdir -p '%s'", work, work))
local root = sh(string.format("%s scripts/sample/oisst.lua '%s' --days 4 --format 2 --car '%s' 2>/dev/null", exe,
  folder, car)):match("(baf%w+)%s*$")
assert(root, "the sample script printed no root")

local honest <close> = ipfsrt.serve { cars = { car } }
local liar <close> = ipfsrt.serve { cars = { car }, faults = { tamper = 0.5, wrong_block = 0.3, seed = 11 } }
local proxy, stop_proxy = start_serve({ "-v", "--upstream", liar:url(), "--upstream", honest:url(),
  "--policy", "failover" }, exe)
local out = sh(string.format("timeout 300 '%s' %sthrough_proxy.mjs '%s' %s '%s'", node, here, proxy, root, folder))
local report = stop_proxy() or ""
local got = ipfsrt.json.decode(out:match("(%b{})%s*$") or "{}")
local refusals = tonumber(report:match(liar:url():gsub("%p", "%%%0") .. ": .-(%d+) verification failures")) or 0
print(string.format("zarrita through ipfsrt serve --upstream: %d arrays, %d values, %d differ from the folder's; " ..
  "the liar answered %d requests, %d of its blocks refused", got.arrays or 0, got.values or 0,
  got.differ and #got.differ or -1, liar:stats().requests, refusals))
local ok = got.arrays and got.arrays >= 5 and #got.differ == 0 and liar:stats().requests > 0 and refusals > 0
if not ok then error("zarrita through the proxy: " .. out, 0) end
