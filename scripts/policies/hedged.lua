-- hedged: the gateways ranked as by 'fastest'; when the first has not started
-- answering by a high quantile of recent first-byte latencies, the next one is
-- raced against it and the first to answer wins (the other is dropped).
local QUANTILE = 0.9
local WINDOW = 200       -- recent latencies kept
local MIN_MS, DEFAULT_MS = 20, 250

return function(ctx)
  local dir = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
  local ranked = dofile(dir .. "/fastest.lua")(ctx)
  local opts = ctx.options or {}
  local quantile = opts.quantile or QUANTILE
  local recent, next_slot = {}, 1

  local policy = {}

  function policy:order(request, gateways) return ranked:order(request, gateways) end

  function policy:hedge_after()
    if #recent < 5 then return DEFAULT_MS end
    local sorted = {}
    for i, v in ipairs(recent) do sorted[i] = v end
    table.sort(sorted)
    local q = sorted[math.max(1, math.ceil(#sorted * quantile))]
    return math.max(MIN_MS, q * 1000)
  end

  function policy:observe(gateway, outcome, request)
    ranked:observe(gateway, outcome, request)
    if outcome.ok then
      recent[next_slot] = outcome.latency
      next_slot = next_slot % WINDOW + 1
    end
  end

  return policy
end
