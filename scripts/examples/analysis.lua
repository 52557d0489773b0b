-- A monthly climatology, a day's anomaly against it as a map, and a point's
-- series with its 7-day rolling mean as a line plot: the pictures in the
-- README's "Analysis" section.
-- Usage: ipfsrt scripts/examples/analysis.lua DATASET [OUT_DIR=.]
-- (DATASET: a folder, a CAR or ipfs://CID of the OISST-like sample, e.g.
-- build/demo/oisst-60 after make demo)
local ipfsrt = require "ipfsrt"
local ds = ipfsrt.dataset.open((assert(arg[1], "usage: analysis.lua DATASET [OUT_DIR]")))
local out = arg[2] or "."

local clim = ds.sst:groupby("time.month"):mean()
local anom = ds.sst:groupby("time.month") - clim
local day = anom:sel { time = "2024-02-29" }:isel { lat = { nil, nil, 2 }, lon = { nil, nil, 2 } }
ipfsrt.plot.map(day, { path = out .. "/anomaly.png", center = 0, units = "Celsius",
  title = "SST anomaly, 2024-02-29, against February's mean" })

local point = ds.sst:sel { lat = 35, lon = 285, method = "nearest" }
ipfsrt.plot.line({ point, point:rolling({ time = 7, center = true }):mean() },
  { path = out .. "/point.svg", title = "SST at 35 N, 285 E", labels = { "daily", "7-day mean" } })
print(string.format("wrote %s/anomaly.png and %s/point.svg", out, out))
