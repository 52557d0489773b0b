-- Helpers shared by the benchmark scripts in scripts/bench/.
local M = {}

-- Runs a shell command; returns its output, raising if it failed.
function M.sh(cmd)
  local p = assert(io.popen(cmd, "r"))
  local out = p:read("a")
  assert(p:close(), "command failed: " .. cmd .. "\n" .. out)
  return out
end

-- Starts `exe serve CARS...` as a process of its own (pid in dir/serve.pid, for
-- `kill $(cat dir/serve.pid)`) and returns its base URL once it listens.
function M.serve(exe, cars, dir)
  local url_file = dir .. "/serve.url"
  os.remove(url_file)
  M.sh(string.format("%s serve %s --threads 2 > %s 2>/dev/null & echo $! > %s/serve.pid", exe,
    table.concat(cars, " "), url_file, dir))
  for _ = 1, 200 do
    local f = io.open(url_file)
    local url = f and f:read("l")
    if f then f:close() end
    if url then return url end
    M.sh("sleep 0.05")
  end
  error("ipfsrt serve did not start", 0)
end

function M.median(t)
  local s = { table.unpack(t) }
  table.sort(s)
  local n = #s
  return n % 2 == 1 and s[(n + 1) // 2] or (s[n // 2] + s[n // 2 + 1]) / 2
end

-- The gateway benchmarks' data, made once in dir: 4,000 random blocks of 64 KiB in
-- blocks.car (CIDs in cids.txt, the same bytes as files www/ipfs/CID for nginx) and
-- a random 1 GiB file (www/big.bin) packed as big.car (root in big.root).
-- Returns {blocks_car, big_car, cids, big_root, www}.
function M.dataset(dir)
  local ipfsrt = require "ipfsrt"
  if not io.open(dir .. "/big.root") then
    io.stderr:write("generating ", dir, " ...\n")
    M.sh(string.format("rm -rf '%s' && mkdir -p '%s/www/ipfs'", dir, dir))
    local rnd = io.open("/dev/urandom", "rb")
    local w <close> = ipfsrt.car.writer(dir .. "/blocks.car", {})
    local list = io.open(dir .. "/cids.txt", "w")
    for _ = 1, 4000 do
      local data = rnd:read(65536)
      local cid = ipfsrt.cid.sum("raw", data)
      w:put(cid, data)
      local f = io.open(string.format("%s/www/ipfs/%s", dir, tostring(cid)), "wb")
      f:write(data)
      f:close()
      list:write(tostring(cid), "\n")
    end
    list:close()
    rnd:close()
    M.sh(string.format("head -c %d /dev/urandom > '%s/www/big.bin'", 1 << 30, dir))
    local root = ipfsrt.pack(dir .. "/www/big.bin", { preset = "ipfs-car", wrap = false,
      output = dir .. "/big.car" })
    local f = io.open(dir .. "/big.root", "w")
    f:write(tostring(root))
    f:close()
  end
  local cids = {}
  for line in io.lines(dir .. "/cids.txt") do cids[#cids + 1] = line end
  return { blocks_car = dir .. "/blocks.car", big_car = dir .. "/big.car", cids = cids,
    big_root = io.open(dir .. "/big.root"):read("a"), www = dir .. "/www" }
end

return M
