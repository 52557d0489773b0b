-- failover: one primary gateway gets every request while it works; when it
-- fails the next one in the configured order becomes the primary (sticky: no
-- going back until that one fails too).
return function(ctx)
  local primary = 1
  local policy = {}

  function policy:order(_, gateways)
    local n, out = #gateways, {}
    for i = 0, n - 1 do out[#out + 1] = gateways[(primary + i - 1) % n + 1] end
    return out
  end

  function policy:observe(_, gateway, outcome)
    if not outcome.ok and gateway.index == primary and outcome.error ~= "not_found" then
      local n = #ctx.gateways
      primary = primary % n + 1
      ctx.log(string.format("failover: %s failed (%s), primary is now %s", gateway.url,
        outcome.error, ctx.gateways[primary].url))
    end
  end

  return policy
end
