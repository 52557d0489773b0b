-- A gateway policy a C host loads with ipfsrt_lua_policy_new: gateways in the
-- configured order, two requests at a time each, and a gateway that sent data
-- failing verification left out from then on. It logs what it sees, so the
-- host can show the contract's counting (attempt 1 for a request's first try).
return function(ctx)
  local caught = {}
  local p = {}
  function p:order(request, gateways)
    local out = {}
    for _, g in ipairs(gateways) do
      if not caught[g.url] then out[#out + 1] = g end
    end
    return out
  end
  function p:observe(request, gateway, outcome)
    if outcome.verification_failed then
      caught[gateway.url] = true
      ctx.log(string.format("caught %s on attempt %d (%s)", gateway.url, request.attempt, outcome.error))
    elseif outcome.ok then
      ctx.log(string.format("%s answered attempt %d", gateway.url, request.attempt))
    end
  end
  function p:max_in_flight(gateway)
    return 2
  end
  return p
end
