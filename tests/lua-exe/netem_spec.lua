-- The benchmarks' network (scripts/bench/netem.c and scripts/bench/lib/network.lua):
-- bytes cross the emulator unchanged under loss and jitter, its counts match
-- what crossed, behind nghttpx (TLS, HTTP/2) the client multiplexes every
-- request on one connection where HTTP/1.1 needs several, and the shared link
-- never makes a burst wait on another connection's window. Counts and the
-- model's own arithmetic, not times.
local ipfsrt = require "ipfsrt"
local exe = require "exe"
package.path = "scripts/bench/lib/?.lua;" .. package.path
local network = require "network"

local build = os.getenv("IPFSRT_BUILD") or "build"
local NETEM = build .. "/bench/netem"

describe("the benchmarks' network emulator", function()
  local dir = os.tmpname()
  os.remove(dir)
  os.execute("mkdir -p " .. dir .. "/tree")
  local files = {}
  for i = 1, 24 do
    files[i] = exe.bytes(100000 + i, i)
    exe.put(string.format("%s/tree/f%02d.bin", dir, i), files[i])
  end
  os.execute("mkdir -p " .. dir .. "/tree/many")
  for i = 1, 150 do exe.put(string.format("%s/tree/many/s%03d.bin", dir, i), exe.bytes(2000, 1000 + i)) end
  local car = dir .. "/tree.car"
  local root = tostring(ipfsrt.pack(dir .. "/tree", { preset = "ipfs-car", output = car }))
  local nets = {}
  local function start(o)
    o.netem = NETEM
    local net = network.start(exe.EXE, dir, { car }, o)
    nets[#nets + 1] = net
    return net
  end
  teardown(function()
    for _, net in ipairs(nets) do net.stop() end
    os.execute("rm -rf " .. dir)
  end)

  -- Every file through one client at once (a batch, as a Zarr read asks).
  local function read_all(net, cacert)
    local c = ipfsrt.client { gateways = { net.url }, cacert = cacert, concurrency = 24 }
    local urls = {}
    for i = 1, #files do urls[i] = string.format("ipfs://%s/f%02d.bin", root, i) end
    local got, errors = c:get_many(urls)
    c:close()
    assert.same({}, errors)
    return got
  end

  it("passes every byte unchanged through loss and jitter, and counts them", function()
    local net = start { rtt = 4, rate = 800, loss = 0.01, jitter = 3 }
    local got = read_all(net)
    for i = 1, #files do assert.equal(files[i], got[i], "file " .. i) end
    local stats = net.stats()
    assert.truthy(stats.bytes_down > 24 * 100000, stats.bytes_down)
    assert.truthy(stats.lost_down > 0, "a loss of 1 % lost no segment")
    assert.truthy(stats.connections >= 1)
  end)

  it("carries HTTP/2 over TLS behind nghttpx: one connection for many requests, where HTTP/1.1 opens several", function()
    local h2 = start { rtt = 2, https = true }
    local cert = dir .. "/tls-cert.pem"
    local got = read_all(h2, cert)
    for i = 1, #files do assert.equal(files[i], got[i]) end
    assert.equal(1, h2.stats().connections)
    -- more requests at once than curl's own cap on a connection's streams (100):
    -- still one connection, as the server allows 256
    local c = ipfsrt.client { gateways = { h2.url }, cacert = cert, concurrency = 150 }
    local urls = {}
    for i = 1, 150 do urls[i] = string.format("ipfs://%s/many/s%03d.bin", root, i) end
    local many, errors = c:get_many(urls)
    c:close()
    assert.same({}, errors)
    assert.equal(150, #many)
    assert.equal(2, h2.stats().connections)
    local h1 = start { rtt = 2 }
    got = read_all(h1)
    for i = 1, #files do assert.equal(files[i], got[i]) end
    assert.truthy(h1.stats().connections > 1)
  end)

  -- The shared link is a calendar: a connection whose next bytes wait a round
  -- trip for their acks (slow start) must not hold the link meanwhile. Were it
  -- held, the other connections' bytes would wait that round trip too; as it
  -- is, no burst waits longer than the link takes to carry everything.
  it("shares one link among connections without holding it for one that waits on its window", function()
    local net = start { rtt = 50, shared = 1000 }
    local got = read_all(net)
    for i = 1, #files do assert.equal(files[i], got[i]) end
    local stats = net.stats()
    assert.truthy(stats.connections > 1, "HTTP/1.1 used one connection")
    local carried_ms = (stats.bytes_down + stats.bytes_up) * 8 / 1e9 * 1000
    assert.truthy(stats.shared_wait_max_ms_down <= carried_ms + 0.2,
      string.format("a burst waited %.1f ms for a link that carried everything in %.1f ms",
        stats.shared_wait_max_ms_down, carried_ms))
  end)

  it("refuses options it cannot honour, naming them", function()
    for _, case in ipairs { { "--rtt", "--to", "1", "--rtt", "soon" }, { "--to", "--rtt", "10" },
      { "--loss", "--to", "1", "--loss", "0.9" }, { "--bogus", "--to", "1", "--bogus", "1" } } do
      local named, args = case[1], { table.unpack(case, 2) }
      local words = { NETEM }
      for _, a in ipairs(args) do words[#words + 1] = exe.sh_quote(a) end
      local p = io.popen(table.concat(words, " ") .. " 2>&1 </dev/null")
      local said = p:read("a")
      local _, _, code = p:close()
      assert.equal(2, code, table.concat(args, " "))
      assert.truthy(said:find(named, 1, true), said)
    end
  end)
end)
