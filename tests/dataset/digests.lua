-- Lazy expressions, groupings and reductions on the sample, as SHA-256 of
-- their bytes: make test-dataset runs this with IPFSRT_THREADS=1 and =3 and
-- compares (results must not depend on how many threads decode, nor on the
-- order chunks arrive in).
-- Usage: ipfsrt digests.lua DIR
local ipfsrt = require "ipfsrt"
local dataset = require "ipfsrt.dataset"
local ds = ipfsrt.dataset.open(arg[1])
local sst, anom = ds.sst, ds.anom
dataset.SLAB_BYTES = 720 * 1440 * 8 * 2 -- slabs of two days
local cases = {
  { "difference", function() return (sst - anom):values() end },
  { "weighted", function() return sst:mean({ "lat", "lon" }, { weights = ds.lat:deg2rad():cos() }) end },
  { "time_mean", function() return (sst * 2 - anom):mean("time") end },
  { "month_mean", function() return sst:groupby("time.month"):mean() end },
  { "anomaly", function() return (sst:groupby("time.day") - sst:groupby("time.day"):mean()):values() end },
  { "median", function() return sst:isel { lat = { 100, 200 } }:median("time") end },
  { "rolling", function() return sst:isel { lat = { 300, 320 } }:rolling({ time = 3 }):mean() end },
}
for _, c in ipairs(cases) do
  local r = c[2]()
  local x = ipfsrt.ndarray.isarray(r) and r or r:values()
  local digest = ipfsrt.multihash.sum("sha2-256", x:tobytes())
  print(c[1], x.dtype, (digest:gsub(".", function(ch) return string.format("%02x", ch:byte()) end)))
end
