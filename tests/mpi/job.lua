-- A job for tests/mpi/mpi_spec.lua, run under mpirun by the ipfsrt executable
-- (or by a stock lua5.4 through mpi.run): reads the OISST-like sample at
-- WHERE through the gateway GATEWAY with ipfsrt.mpi.map_chunks and prints what
-- rank 0 found as JSON. TASK: sums (raw integer sums, counts, the mean scaled
-- last, min and max), series (a time series placed by chunk), day (one day:
-- 8 chunks, with each rank's share), corner (one chunk), fail (rank 2 fails
-- after 0.5 s while the others wait), threads (worker threads per rank).
local ipfsrt = require "ipfsrt"
local mpi = require "ipfsrt.mpi"

local where, gateway, task = arg[1], arg[2], arg[3]

local function list(all) return { table.unpack(all, 1, all.n) } end

local function report(x)
  if mpi.rank() == 0 then io.write(ipfsrt.json.encode(x), "\n") end
end

-- sum and count of the valid stored integers of a chunk, and their extremes
local function valid_sums(values, chunk)
  local valid
  for _, f in ipairs(chunk.cf and chunk.cf.fills or {}) do
    local m = values:ne(f)
    valid = valid and (valid & m) or m
  end
  local n = valid and valid:sum() or values.size
  if n == 0 then return { sum = 0, count = 0 } end
  return { sum = valid and values:sum { where = valid } or values:sum(), count = n,
    low = valid and values:min { where = valid } or values:min(),
    high = valid and values:max { where = valid } or values:max() }
end

local function main()
  local ds = ipfsrt.dataset.open(where, { gateways = gateway })
  if task == "sums" then
    local s, info = mpi.map_chunks(ds.sst, valid_sums, "sum")
    local lows = mpi.map_chunks(ds.sst, function(v, c) return valid_sums(v, c).low end, "min")
    local highs = mpi.map_chunks(ds.sst, function(v, c) return valid_sums(v, c).high end, "max")
    local cf = ds.sst:source().cf
    report { sum = s.sum, count = s.count, mean = s.sum * cf.scale / s.count + (cf.offset or 0), low = lows,
      high = highs, chunks = info.chunks, shares = list(mpi.allgather(info.mine)) }
  elseif task == "series" then
    local v = ds.sst:isel { lat = 400, lon = 1000 }
    report { series = mpi.map_chunks(v, nil, "place", { decode = true }):tolist() }
  elseif task == "day" or task == "corner" then
    local v = task == "day" and ds.sst:isel { time = 1 }
      or ds.sst:isel { time = 0, lat = { 0, 360 }, lon = { 0, 360 } }
    local s, info = mpi.map_chunks(v, valid_sums, "sum")
    local field = mpi.map_chunks(v, nil, "place", { decode = true })
    report { sum = s.sum, count = s.count, chunks = info.chunks, shares = list(mpi.allgather(info.mine)),
      field_sum = field:sum { skipna = true }, field_count = field:count() }
  elseif task == "fail" then
    if mpi.rank() == 2 then
      os.execute("sleep 0.5")
      error("rank 2 gives up")
    end
    mpi.map_chunks(ds.sst, valid_sums, "sum")
    mpi.barrier()
    report { finished = true }
  elseif task == "threads" then
    report { threads = list(mpi.allgather((ipfsrt.threads()))), node_size = mpi.node_size() }
  end
end

if arg[4] == "bare" then main() else mpi.run(main) end
