-- fastest: gateways ranked by an exponentially weighted moving average of their
-- time to first byte and their throughput; untried gateways are tried first and
-- now and then (explore) a random one goes first, so a gateway that got faster
-- is noticed. Failures count as slow answers.
local ipfsrt = require "ipfsrt"

local ALPHA = 0.3           -- weight of the newest observation
local EXPLORE = 0.05        -- share of requests sent to a random gateway first
local FAILURE_PENALTY = 2.0 -- seconds added to the latency average per failure
local TYPICAL_BYTES = 256 * 1024

return function(ctx)
  local opts = ctx.options or {}
  local explore = opts.explore or EXPLORE
  local stats = {} -- url -> {latency = s, throughput = bytes/s, n = observations}
  local rng = opts.seed or math.floor(ipfsrt.clock() * 1e6)
  local function random() -- small LCG, so runs can be reproduced with a seed
    rng = (rng * 6364136223846793005 + 1442695040888963407) & 0x7fffffffffffffff
    return (rng >> 11) / (1 << 52)
  end

  local function expected_time(url)
    local s = stats[url]
    if not s then return -1 end -- untried: first
    if not s.throughput then return s.latency end
    return s.latency + TYPICAL_BYTES / math.max(s.throughput, 1)
  end

  local policy = {}

  function policy:order(_, gateways)
    local out = {}
    for i, g in ipairs(gateways) do out[i] = g end
    table.sort(out, function(a, b)
      local ta, tb = expected_time(a.url), expected_time(b.url)
      if ta == tb then return a.index < b.index end
      return ta < tb
    end)
    if #out > 1 and random() < explore then
      local pick = 2 + math.floor(random() * (#out - 1))
      out[1], out[pick] = out[pick], out[1]
    end
    return out
  end

  function policy:observe(_, gateway, outcome)
    if outcome.guess and outcome.error == "not_found" then return end -- a prefetch's guess: says nothing
    local s = stats[gateway.url]
    local latency = outcome.latency + (outcome.ok and 0 or FAILURE_PENALTY)
    local transfer = outcome.duration - outcome.latency
    -- small bodies say little about throughput
    local throughput = outcome.ok and transfer > 0 and outcome.bytes >= 16384 and outcome.bytes / transfer or nil
    if not s then
      stats[gateway.url] = {latency = latency, throughput = throughput, n = 1}
      return
    end
    s.latency = s.latency + ALPHA * (latency - s.latency)
    if throughput then
      s.throughput = s.throughput and s.throughput + ALPHA * (throughput - s.throughput) or throughput
    end
    s.n = s.n + 1
  end

  function policy:estimates() return stats end

  return policy
end
