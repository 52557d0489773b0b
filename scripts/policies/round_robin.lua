-- round_robin: each request starts at the next gateway in turn; the rest follow
-- in the configured order as fallbacks.
return function()
  local turn = 0
  local policy = {}

  function policy:order(request, gateways)
    local n, out = #gateways, {}
    if request.attempt == 1 then turn = turn + 1 end
    for i = 0, n - 1 do out[#out + 1] = gateways[(turn + i - 1) % n + 1] end
    return out
  end

  return policy
end
