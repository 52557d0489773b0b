-- Gateway policies as a user writes and names them: errors that say what is
-- wrong (exit 2 from the CLI), where named policies are found and where not,
-- and policies that build on one another.
local ipfsrt = require "ipfsrt"
local exe = require "exe"
local run, put = exe.run, exe.put

describe("policies", function()
  local dir = os.tmpname()
  os.remove(dir)
  os.execute("mkdir -p " .. dir .. "/tree " .. dir .. "/mine " .. dir .. "/checkout/scripts/policies")
  put(dir .. "/tree/a.txt", "policy test\n")
  local car = dir .. "/tree.car"
  local root = tostring(ipfsrt.pack(dir .. "/tree", { preset = "kubo-v1-2025", output = car }))
  local gateway, stop_gateways = exe.gateways({ car })
  local gw = gateway()
  local url = "ipfs://" .. root .. "/a.txt"

  teardown(function()
    stop_gateways()
    os.execute("rm -rf " .. dir)
  end)

  local function get_with(policy, opts)
    return run({ "get", "--gateway", gw:url(), "--policy", policy, url }, opts)
  end

  it("says what is wrong with a policy, in one line, and exits 2", function()
    put(dir .. "/mine/syntax.lua", "return function(ctx) return {order = function( end")
    put(dir .. "/mine/notfn.lua", "return 42")
    put(dir .. "/mine/order1.lua", "return {order = 1}")
    put(dir .. "/mine/throws.lua", "return function(ctx) error('no config for me') end")
    local cases = {
      { "fastset", "no policy named 'fastset'" }, -- misspelt: the known ones are listed
      { dir .. "/mine/missing.lua", "cannot be read" },
      { dir .. "/mine/syntax.lua", "syntax.lua" },
      { dir .. "/mine/notfn.lua", "must return a constructor" },
      { dir .. "/mine/order1.lua", "needs an order method" },
      { dir .. "/mine/throws.lua", "no config for me" },
    }
    for _, c in ipairs(cases) do
      local code, out, err = get_with(c[1])
      assert.equal(2, code, c[1] .. ": " .. err)
      assert.equal("", out)
      assert.truthy(err:find(c[2], 1, true), err)
      assert.truthy(err:find("bad_policy", 1, true), err)
      assert.is_nil(err:find("table: 0x", 1, true), err)
    end
    local _, _, err = get_with("fastset")
    assert.truthy(err:find("fastest", 1, true), "the known policies are named: " .. err)
  end)

  it("finds named policies in IPFSRT_POLICY_PATH and the installed ones, never in the current directory", function()
    put(dir .. "/checkout/scripts/policies/evil.lua",
      "return function() return {order = function() os.exit(7) end} end")
    local code, _, err = get_with("evil", { cwd = dir .. "/checkout" })
    assert.equal(2, code, err)
    assert.truthy(err:find("no policy named 'evil'", 1, true), err)
    code = get_with("evil", { cwd = dir .. "/checkout", env = "IPFSRT_POLICY_PATH=scripts/policies" })
    assert.equal(7, code) -- asked for by path: used
    local out
    code, out = get_with("trust", { cwd = dir .. "/checkout" }) -- the shipped ones still are
    assert.equal(0, code)
    assert.equal("policy test\n", out)
  end)

  it("lets a policy build on another with require, in seconds throughout", function()
    put(dir .. "/mine/base.lua", [[
      return function(ctx)
        return { order = function(_, request, gateways) return { gateways[1] } end }
      end]])
    put(dir .. "/mine/derived.lua", [[
      local base = require "ipfsrt.policies.base"
      local seen = {}
      return function(ctx)
        local b = base(ctx)
        local p = {}
        function p:order(request, gateways) return b:order(request, gateways) end
        function p:hedge_after(request) return 0.5 end
        function p:observe(request, gateway, outcome)
          assert(type(request.path) == "string" and gateway.url and type(outcome.latency) == "number")
          assert(outcome.latency < 5, "latency in seconds")
          ctx.log("observed " .. request.kind .. " in seconds")
        end
        return p
      end]])
    local code, out, err = get_with("derived", { env = "IPFSRT_POLICY_PATH=" .. exe.sh_quote(dir .. "/mine") })
    assert.equal(0, code, err)
    assert.equal("policy test\n", out)
    code, out, err = run({ "get", "-v", "--gateway", gw:url(), "--policy", "derived", url },
      { env = "IPFSRT_POLICY_PATH=" .. exe.sh_quote(dir .. "/mine") })
    assert.equal(0, code, err)
    assert.truthy(err:find("observed car in seconds", 1, true), err)
  end)
end)
