-- One run of scripts/bench/mpi_scale.lua, under mpirun: the OISST-like
-- sample's time series at one point ("series": one chunk a day, placed) or
-- bulk mean ("bulk": every chunk, stored integers summed) over the first DAYS
-- days through ipfsrt.mpi.map_chunks, the gateway's client allowed
-- CONCURRENCY requests in flight. Rank 0 prints {seconds =, cpu =, chunks =}:
-- the slowest rank's time from a common start (the dataset already open), and
-- the CPU seconds of all ranks.
-- Usage: mpirun -n N ipfsrt scripts/bench/mpi_job.lua ROOT GATEWAY series|bulk DAYS CONCURRENCY
local ipfsrt = require "ipfsrt"
local mpi = require "ipfsrt.mpi"

local root, gateway, what, days, concurrency = arg[1], arg[2], arg[3], tonumber(arg[4]), tonumber(arg[5])

local function valid_sums(raw, chunk)
  local valid = raw:ne(chunk.cf.fills[1])
  return { sum = raw:sum { where = valid }, count = valid:sum() }
end

mpi.run(function()
  local ds = ipfsrt.dataset.open("ipfs://" .. root, { gateways = gateway, concurrency = concurrency })
  local v = ds.sst:isel { time = { 0, days } }
  mpi.barrier()
  local cpu, t0 = os.clock(), mpi.wtime()
  local result, info
  if what == "series" then
    result, info = mpi.map_chunks(v:isel { lat = 400, lon = 1000 }, nil, "place", { decode = true })
    result = result:sum { skipna = true }
  else
    local s
    s, info = mpi.map_chunks(v, valid_sums, "sum")
    result = s.sum * ds.sst.attrs.scale_factor / s.count
  end
  local took = mpi.allreduce(mpi.wtime() - t0, "max")
  cpu = mpi.allreduce(os.clock() - cpu, "sum")
  if mpi.rank() == 0 then
    io.write(ipfsrt.json.encode { seconds = took, cpu = cpu, chunks = info.chunks, result = result }, "\n")
  end
end)
