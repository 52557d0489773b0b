-- ipfsrt.client's options, checked in Lua (lua/ipfsrt/client.lua) before the C
-- client exists; no gateway is contacted.
local ipfsrt = require "ipfsrt"

local function raises(code, needle, opts)
  local ok, err = pcall(ipfsrt.client, opts)
  assert.is_false(ok)
  assert.equal(code, err.code)
  assert.truthy(tostring(err.message):find(needle, 1, true), err.message)
end

describe("ipfsrt.client options", function()
  it("names the option at fault", function()
    raises("bad_argument", "gateways[2] is not a URL", { gateways = { "http://127.0.0.1:1", 5 } })
    raises("bad_argument", "gateways must be", { gateways = 5 })
    raises("bad_argument", "concurrency", { concurrency = -1 })
    raises("bad_argument", "retries", { retries = 1.5 })
    raises("bad_argument", "timeout", { timeout = "soon" })
    raises("bad_argument", "cache must be", { cache = "yes" })
    raises("bad_argument", "cache.memory", { cache = { memory = -5 } })
    raises("bad_argument", "log must be", { log = "stderr" })
    raises("bad_argument", "options must be a table", "http://127.0.0.1:1")
    raises("bad_policy", "no policy named 'nonesuch'", { gateways = "http://127.0.0.1:1", policy = "nonesuch" })
    raises("bad_policy", "name must be a string", { gateways = "http://127.0.0.1:1", policy = { name = 5 } })
  end)

  it("takes one URL or a list, and hands policies the gateways it kept", function()
    local c = ipfsrt.client { gateways = "http://127.0.0.1:1", cache = false }
    assert.same({ "http://127.0.0.1:1" }, (c:gateways()))
    c:close()
    local seen
    c = ipfsrt.client { gateways = { "http://127.0.0.1:1", "http://127.0.0.1:2/" }, cache = { memory = 0 },
      policy = function(ctx) seen = ctx.gateways; return { order = function() return {} end } end }
    assert.equal(2, #seen)
    assert.equal(2, seen[2].index)
    assert.truthy(seen[2].url:find("127.0.0.1:2", 1, true))
    c:close()
  end)

  it("asks a policy's max_in_flight once per gateway, and refuses what is not a count", function()
    local asked = {}
    local function with_cap(cap)
      return function()
        return { order = function() return {} end,
                 max_in_flight = function(_, g) asked[#asked + 1] = g.index; return cap end }
      end
    end
    local c = ipfsrt.client { gateways = { "http://127.0.0.1:1", "http://127.0.0.1:2" }, cache = false,
      policy = with_cap(3) }
    assert.same({ 1, 2 }, asked)
    c:close()
    for _, bad in ipairs { 0, 2.5, "4", -1 } do
      raises("bad_policy", "max_in_flight(http://127.0.0.1:1)",
        { gateways = "http://127.0.0.1:1", cache = false, policy = with_cap(bad) })
    end
    raises("bad_policy", "max_in_flight must be a method",
      { gateways = "http://127.0.0.1:1", policy = { order = function() return {} end, max_in_flight = 4 } })
    c = ipfsrt.client { gateways = "http://127.0.0.1:1", cache = false, policy = with_cap(nil) } -- nil: no cap
    c:close()
  end)

  it("takes a hash backend of the client's own, by a name built in", function()
    local built_in = ipfsrt.hash.backends()[1]
    local c = ipfsrt.client { gateways = "http://127.0.0.1:1", cache = false, hash = built_in }
    c:close()
    local ok, err = pcall(ipfsrt.client, { gateways = "http://127.0.0.1:1", hash = "md5" })
    assert.is_false(ok)
    assert.truthy(err.message:find(built_in, 1, true), err.message)
    assert.has_error(function()
      require("ipfsrt.core").client_new({ "http://127.0.0.1:1" }, { hash = "md5" })
    end)
  end)

  it("checks what the C constructor is given too", function()
    assert.has_error(function() require("ipfsrt.core").client_new({ "http://127.0.0.1:1" }, { concurrency = "x" }) end)
    local ok, err = pcall(require("ipfsrt.core").client_new, { {} }, {})
    assert.is_false(ok)
    assert.truthy(tostring(err.message):find("gateways[1]", 1, true))
  end)
end)
