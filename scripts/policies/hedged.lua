-- hedged: the gateways ranked as by 'fastest'; when the first has not started
-- answering by a high quantile of recent first-byte latencies, the next one is
-- raced against it and the first to answer wins (the other is dropped).
local QUANTILE = 0.9
local WINDOW = 200       -- recent latencies kept
local MIN_S, DEFAULT_S = 0.02, 0.25

return function(ctx)
  local ranked = require("ipfsrt.policies.fastest")(ctx)
  local opts = ctx.options or {}
  local quantile = opts.quantile or QUANTILE
  local recent, next_slot = {}, 1

  local policy = {}

  function policy:order(request, gateways) return ranked:order(request, gateways) end

  function policy:hedge_after()
    if #recent < 5 then return DEFAULT_S end
    local sorted = {}
    for i, v in ipairs(recent) do sorted[i] = v end
    table.sort(sorted)
    local q = sorted[math.max(1, math.ceil(#sorted * quantile))]
    return math.max(MIN_S, q)
  end

  function policy:observe(request, gateway, outcome)
    ranked:observe(request, gateway, outcome)
    if outcome.ok then
      recent[next_slot] = outcome.latency
      next_slot = next_slot % WINDOW + 1
    end
  end

  return policy
end
