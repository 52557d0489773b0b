-- trust: gateways in the configured order, except that one which sent data
-- failing verification (a block not matching its CID, or blocks that are not the
-- path asked for) is quarantined: left out for a while, twice as long for each
-- new offence. Each quarantine is reported through the log.
local ipfsrt = require "ipfsrt"

local FIRST_QUARANTINE_S = 60
local MAX_QUARANTINE_S = 24 * 3600

return function(ctx)
  local opts = ctx.options or {}
  local first = opts.quarantine or FIRST_QUARANTINE_S
  local offences, until_ = {}, {} -- url -> count, url -> release time
  local policy = {}

  function policy:order(_, gateways)
    local now, out = ipfsrt.clock(), {}
    for _, g in ipairs(gateways) do
      if not until_[g.url] or until_[g.url] <= now then out[#out + 1] = g end
    end
    return out
  end

  function policy:observe(_, gateway, outcome)
    if not outcome.verification_failed then return end
    local n = (offences[gateway.url] or 0) + 1
    offences[gateway.url] = n
    local seconds = math.min(first * 2 ^ (n - 1), MAX_QUARANTINE_S)
    until_[gateway.url] = ipfsrt.clock() + seconds
    ctx.log(string.format("trust: quarantined %s for %g s (offence %d, %s: %s)", gateway.url,
      seconds, n, outcome.error, outcome.detail))
  end

  function policy:quarantined()
    local now, out = ipfsrt.clock(), {}
    for url, t in pairs(until_) do if t > now then out[url] = t - now end end
    return out
  end

  return policy
end
