-- Benchmark: a batched read from Python against the Lua client's, side by
-- side. The 366-day sample (Zarr v2) behind the network emulator and
-- nghttpx (TLS, HTTP/2) at each round trip of --rtts; cold processes,
-- Python's and Lua's alternating: python_batch.py (the package ipfsrt,
-- zarr-python) and python_batch_peer.lua (ipfsrt.zarr). fetch: the 366 chunks
-- holding one point as one batch, from the call to the bytes in the
-- language; select: the point's time series, from the call to the numbers
-- (the same batch, then the chunks decoded: zarr-python's numcodecs in one
-- thread, against ipfsrt's decoding threads). Medians and ratios.
-- Usage: ipfsrt scripts/bench/python_batch.lua [--runs 5] [--rtts 0,20,80] [--dir build/bench]
local ipfsrt = require "ipfsrt"
package.path = (arg[0]:match("^(.*)/") or ".") .. "/lib/?.lua;" .. package.path
local bench = require "bench"
local network = require "network"

local o = { runs = "5", rtts = "0,20,80", dir = "build/bench", rate = "400" }
for i = 1, #arg, 2 do o[(arg[i]:gsub("^%-%-", ""))] = arg[i + 1] end
local exe = os.getenv("IPFSRT_EXE") or "build/ipfsrt"
local _, car, root = bench.sample(exe, o.dir, "366", "2")
local site = exe:gsub("ipfsrt$", "") .. "python"

local function one(command)
  local out = bench.sh(command .. " 2>/dev/null")
  return ipfsrt.json.decode(assert(out:match("{.*}"), command .. ": no result"))
end

local function measure(rtt)
  local net = network.start(exe, o.dir, { car }, { rtt = rtt, rate = tonumber(o.rate), https = true,
    netem = exe:gsub("ipfsrt$", "bench/netem") })
  local commands = {
    python = string.format("%s PYTHONPATH=%s /usr/bin/python3 scripts/bench/python_batch.py %s %s", net.env, site,
      net.url, root),
    lua = string.format("%s %s scripts/bench/python_batch_peer.lua %s %s", net.env, exe, net.url, root),
  }
  local got = { python = { fetch = {}, select = {} }, lua = { fetch = {}, select = {} } }
  local sums = {}
  for rep = 0, tonumber(o.runs) do -- run 0 warms the gateway and the page cache: not counted
    for _, who in ipairs { "python", "lua" } do
      local r = one(commands[who])
      sums[who] = r.sum .. "/" .. r.bytes
      if rep > 0 then
        table.insert(got[who].fetch, r.fetch_ms)
        table.insert(got[who].select, r.select_ms)
      end
    end
  end
  net.stop()
  assert(sums.python == sums.lua, "Python and Lua read different values: " .. sums.python .. " " .. sums.lua)
  return got
end

print(string.format("366 chunks holding one point of the 366-day sample, through nghttpx (TLS, HTTP/2) and the " ..
  "emulator at %s Mbit/s; medians of %s cold processes each, ms", o.rate, o.runs))
print(string.format("%6s %12s %12s %8s %12s %12s %8s", "rtt", "py fetch", "lua fetch", "py/lua", "py select",
  "lua select", "py/lua"))
for rtt in o.rtts:gmatch("%d+") do
  local g = measure(tonumber(rtt))
  local pf, lf = bench.median(g.python.fetch), bench.median(g.lua.fetch)
  local ps, ls = bench.median(g.python.select), bench.median(g.lua.select)
  print(string.format("%6s %12.1f %12.1f %7.2fx %12.1f %12.1f %7.2fx", rtt .. " ms", pf, lf, pf / lf, ps, ls, ps / ls))
end
