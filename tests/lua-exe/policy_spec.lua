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
    code, _, err = get_with("evil", { cwd = dir .. "/checkout", env = "IPFSRT_POLICY_PATH=scripts/policies" })
    assert.equal(2, code) -- asked for by path: used, but in the sandbox, where os.exit is not
    assert.truthy(err:find("evil.lua", 1, true) and err:find("'exit'", 1, true), err)
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

  it("keeps the contract the README states: attempt from 1, observe for every outcome, answers checked", function()
    -- in this process: the client and its policy objects directly
    local other = gateway()
    local missing = "ipfs://" .. root .. "/no-such-file"
    local seen = {}
    local p = {}
    function p:order(request, gateways)
      seen.attempts = seen.attempts or {}
      seen.attempts[#seen.attempts + 1] = request.attempt
      return gateways
    end
    function p:observe(request, gateway, outcome)
      seen.errors = seen.errors or {}
      seen.errors[#seen.errors + 1] = outcome.error
      assert(type(outcome.guess) == "boolean")
    end
    local c = ipfsrt.client { gateways = { gw:url(), other:url() }, policy = p, cache = false }
    assert.equal("policy test\n", c:get(url))
    assert.equal(1, seen.attempts[1]) -- the first try of a request is attempt 1
    local ok, err = pcall(c.get, c, missing)
    assert.is_false(ok)
    assert.equal("not_found", err.code)
    local any_404 = false
    for _, e in ipairs(seen.errors) do any_404 = any_404 or e == "not_found" end
    assert.is_true(any_404, "observe saw the 404s: " .. table.concat(seen.errors, ","))
    c:close()
    -- answers the contract does not allow: a bad_policy error naming the value and the policy
    local bad = {
      { "return function() return {order = function() return 42 end} end", "order returned 42" },
      { "return function() return {order = function() return {'nonsense', 99} end} end",
        "order's entry 1 is nonsense" },
      { "return function() return {order = function() return {7} end} end", "order's entry 1 is 7" },
      { "return function() return {order = function(_, _, g) return g end, hedge_after = function() return 'soon' end} end",
        "hedge_after returned soon" },
    }
    for i, case in ipairs(bad) do
      local file = string.format("%s/mine/bad%d.lua", dir, i)
      put(file, case[1])
      local client = ipfsrt.client { gateways = { gw:url() }, policy = file, cache = false }
      local ok2, e = pcall(client.get, client, url)
      client:close()
      assert.is_false(ok2, case[2])
      assert.equal("bad_policy", e.code, tostring(e))
      assert.truthy(e.message:find(case[2], 1, true), e.message)
      assert.truthy(e.message:find(file, 1, true), e.message)
    end
  end)

  it("bounds a policy that loops or allocates: the call fails with bad_policy naming the method", function()
    local spin = "while true do end"
    local cases = {
      toplevel = { spin .. " return nil", "ran over its budget" },
      constructor = { "return function(ctx) " .. spin .. " end", "ran over its budget" },
      order = { "return function(ctx) return {order = function() " .. spin .. " end} end", "order failed: ran over" },
      observe = { "return function(ctx) return {order = function(s, r, g) return g end, observe = function() " ..
        spin .. " end} end", "observe failed: ran over" },
      caught = { "return function(ctx) return {order = function() while true do pcall(function() " .. spin ..
        " end) end end} end", "order failed: ran over" },
      allocates = { "return function(ctx) return {order = function() local t = {} for i = 1, 1e9 do " ..
        "t[i] = ('x'):rep(4096) .. i end end} end", "memory budget" },
      huge = { "return function(ctx) return {order = function() return ('x'):rep(1 << 30) end} end",
        "memory budget" },
      observe_raises = { "return function(ctx) return {order = function(s, r, g) return g end, " ..
        "observe = function() error('observe broke') end} end", "observe failed: " },
    }
    for name, c in pairs(cases) do
      local file = dir .. "/mine/" .. name .. ".lua"
      put(file, c[1])
      local code, _, err = get_with(file)
      assert.equal(2, code, name .. ": " .. err)
      assert.truthy(err:find("bad_policy", 1, true) and err:find(c[2], 1, true), name .. ": " .. err)
    end
  end)

  it("runs a policy in a sandbox: no files, commands, exits, binary chunks or C modules", function()
    local witness = dir .. "/written-by-policy"
    local cases = {
      io = "io.open('" .. witness .. "', 'w'):write('x')",
      execute = "os.execute('touch " .. witness .. "')",
      exit = "os.exit(7)",
      remove = "os.remove('" .. car .. "')",
      dofile = "dofile('" .. car .. "')",
      binary = "assert(load(string.dump(function() end), 'x', 'b'))",
      binary_default = "assert(load(string.dump(function() end)))",
      c_module = "require('ipfsrt.core')",
      ipfsrt_module = "require('ipfsrt').pack('/tmp', {output = '" .. witness .. "'})",
      package = "package.loadlib('libc.so.6', 'system')",
      debug = "debug.sethook()",
    }
    for name, line in pairs(cases) do
      local file = dir .. "/mine/escape_" .. name .. ".lua"
      put(file, "return function(ctx) return {order = function(s, r, g) " .. line .. " return g end} end")
      local code, _, err = get_with(file)
      assert.equal(2, code, name .. ": " .. err)
      assert.truthy(err:find("bad_policy", 1, true), name .. ": " .. err)
    end
    assert.is_nil(io.open(witness, "r"))
    assert.is_not_nil(io.open(car, "r"))
    -- what it has: computation, time, other policies, ctx.log
    put(dir .. "/mine/allowed.lua", "local ipfsrt = require 'ipfsrt' local f = require 'ipfsrt.policies.fastest' " ..
      "return function(ctx) local p = f(ctx) assert(type(ipfsrt.clock()) == 'number' and type(os.time()) == 'number' and " ..
      "math.floor(2.5) == 2 and string.format('%d', 3) == '3' and table.concat({1, 2}) == '12' and " ..
      "load('return 1')() == 1) return p end")
    local code, out, err = get_with(dir .. "/mine/allowed.lua")
    assert.equal(0, code, err)
    assert.equal("policy test\n", out)
  end)

  it("hands back the policy object a client holds, and its stats with the documented fields", function()
    local counted = { n = 0 }
    function counted:order(_, gateways) return gateways end
    function counted:observe() self.n = self.n + 1 end
    local c = ipfsrt.client { gateways = { gw:url() }, policy = counted }
    assert.equal(counted, c:policy())
    assert.equal("policy test\n", c:get(url))
    assert.is_true(c:policy().n >= 1)
    local st = c:stats()[1]
    for _, field in ipairs { "url", "requests", "ok", "failed", "bytes", "verify_failures", "errors", "latency" } do
      assert.is_not_nil(st[field], field)
    end
    c:set_policy(nil)
    assert.is_nil(c:policy())
    c:close()
  end)

  it("takes -q on every fetching subcommand, and names IPFSRT_POLICY_PATH when a policy is not found", function()
    for _, sub in ipairs { "ls", "stat", "get", "cat" } do
      local target = sub == "ls" and "ipfs://" .. root or url
      local args = { sub, "-q", "--gateway", gw:url(), target }
      if sub == "get" then args = { sub, "-q", "--gateway", gw:url(), "-o", dir .. "/got.txt", target } end
      local code, _, err = run(args)
      assert.equal(0, code, sub .. ": " .. err)
    end
    local code, _, err = get_with("nosuch")
    assert.equal(2, code)
    assert.truthy(err:find("IPFSRT_POLICY_PATH", 1, true), err)
  end)
end)
