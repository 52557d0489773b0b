-- Gateway selection policies: loading them by name, file, constructor or object.
-- A policy object answers (request first in each, times in seconds):
--   policy:order(request, gateways)          -> the gateways to try, best first
--   policy:hedge_after(request)              -> seconds to wait for the first
--                                               gateway before racing the next (optional)
--   policy:observe(request, gateway, outcome)                           (optional)
--   policy:max_in_flight(gateway)            -> the most requests in flight at that
--                                               gateway, nil = the client's (optional)
-- See scripts/policies/README.md for every field. Named policies are files NAME.lua
-- in the policy directories (IPFSRT_POLICY_PATH, then the installed ones; never
-- the current directory) and return a constructor: function(ctx) -> policy.
-- A policy loads another with require "ipfsrt.policies.NAME".
-- A policy file runs in a sandbox (M.sandbox) unless its host trusts it, and
-- its file, constructor and every method run under a budget of instructions
-- and memory per call (the C bridge, lua_budget.c).
local ipfsrt = require "ipfsrt"
local core = require "ipfsrt.core"

local M = {}

local function fail(fmt, ...)
  error(ipfsrt.error.new("bad_policy", string.format(fmt, ...)), 0)
end

-- Where named policies are looked for: IPFSRT_POLICY_PATH (colon-separated), then
-- the directory the runtime was installed with (or, for the executable in a
-- source tree, scripts/policies beside it).
function M.search_dirs()
  local dirs, seen = {}, {}
  local function add(d)
    if d and d ~= "" and not seen[d] then seen[d] = true; dirs[#dirs + 1] = d end
  end
  for d in (os.getenv("IPFSRT_POLICY_PATH") or ""):gmatch("[^:]+") do add(d) end
  add(ipfsrt.policy_dir)
  return dirs
end

-- The file of the policy NAME in the search directories, or nil.
local function policy_file(name)
  for _, dir in ipairs(M.search_dirs()) do
    local path = dir .. "/" .. name .. ".lua"
    local f = io.open(path, "r")
    if f then f:close(); return path end
  end
end

local function find(name)
  if name:find("/", 1, true) or name:match("%.lua$") then return name end
  if not name:match("^[%w_%-]+$") then fail("policy name '%s' is not a name or a .lua file", name) end
  local path = policy_file(name)
  if path then return path end
  local dirs = M.search_dirs()
  local known = M.available()
  fail("no policy named '%s' (known: %s; looked in %s; IPFSRT_POLICY_PATH=DIR:... names more directories)", name,
    #known > 0 and table.concat(known, ", ") or "none", #dirs > 0 and table.concat(dirs, ", ") or "no directory")
end

-- Names of the policies found in the search directories.
function M.available()
  local names, seen = {}, {}
  for _, dir in ipairs(M.search_dirs()) do
    local ok, entries = pcall(ipfsrt.listdir, dir)
    if ok then
      for _, e in ipairs(entries) do
        local n = e:match("^([%w_%-]+)%.lua$")
        if n and not seen[n] then seen[n] = true; names[#names + 1] = n end
      end
    end
  end
  table.sort(names)
  return names
end

-- require "ipfsrt.policies.NAME": a policy's constructor, from the same directories.
-- The chunk of the policy ipfsrt.policies.NAME (into env, a sandbox, when
-- given) and its file; nil and why when there is no such file.
local function policy_chunk(name, env)
  local path = policy_file(name)
  if not path then return nil, "no policy file " .. name .. ".lua in " .. table.concat(M.search_dirs(), ", ") end
  local chunk, err
  if env then chunk, err = loadfile(path, "t", env) else chunk, err = loadfile(path) end
  if not chunk then fail("policy %s: %s", path, err) end
  return chunk, path
end

local function search_policies(modname)
  local name = modname:match("^ipfsrt%.policies%.([%w_%-]+)$")
  if not name then return nil end
  local chunk, where = policy_chunk(name)
  if not chunk then return where end
  return chunk, where
end

-- What a policy's code sees unless its host trusts it: computation, time and
-- other policies; no files, processes, exits, binary chunks or C modules
-- (scripts/policies/README.md lists it).
local SAFE_GLOBALS = { "assert", "error", "getmetatable", "ipairs", "next", "pairs", "pcall", "rawequal", "rawget",
  "rawlen", "rawset", "select", "setmetatable", "tonumber", "tostring", "type", "xpcall", "_VERSION" }
local SAFE_LIBS = { coroutine = true, math = true, string = true, table = true, utf8 = true,
  os = { "clock", "date", "difftime", "getenv", "time" } }

local function copy_of(lib, names)
  local t = {}
  if names == true then
    for k, v in pairs(lib) do t[k] = v end
  else
    for _, k in ipairs(names) do t[k] = lib[k] end
  end
  return t
end

local sandbox_require

-- A fresh global table for one policy (shared with the policies it requires).
function M.sandbox()
  local env = {}
  for _, k in ipairs(SAFE_GLOBALS) do env[k] = _G[k] end
  for lib, names in pairs(SAFE_LIBS) do env[lib] = copy_of(_G[lib], names) end
  env._G = env
  env.load = function(chunk, name, mode, e)
    if mode ~= nil and mode ~= "t" then error("a policy loads text chunks only", 2) end
    return load(chunk, name, "t", e or env)
  end
  local loaded = { ipfsrt = { clock = ipfsrt.clock, version = ipfsrt.version } }
  env.require = function(name) return sandbox_require(env, loaded, name) end
  return env
end

-- require inside the sandbox: "ipfsrt" (its clock), or another policy, run in
-- the same sandbox and kept for the next require of it there.
function sandbox_require(env, loaded, modname)
  if loaded[modname] ~= nil then return loaded[modname] end
  local name = type(modname) == "string" and modname:match("^ipfsrt%.policies%.([%w_%-]+)$")
  if not name then error(string.format("a policy may require only ipfsrt and ipfsrt.policies.NAME, not '%s'",
    tostring(modname)), 2) end
  local chunk, where = policy_chunk(name, env)
  if not chunk then error(where, 2) end
  local made = chunk(modname, where)
  loaded[modname] = made == nil and true or made
  return loaded[modname]
end

local installed = false
local function install_searcher()
  if installed then return end
  installed = true
  table.insert(package.searchers, 2, search_policies)
end
install_searcher()

local function load_file(path, how)
  local chunk, err
  if how.trusted then chunk, err = loadfile(path) else chunk, err = loadfile(path, "t", M.sandbox()) end
  if not chunk then
    local f = io.open(path, "r")
    if not f then fail("policy file %s: cannot be read", path) end
    f:close()
    fail("policy %s: %s", path, tostring(err))
  end
  local ok, made = core.budget_call(how, chunk)
  if not ok then fail("policy %s: %s", path, tostring(made)) end
  if type(made) ~= "function" and type(made) ~= "table" then
    fail("policy %s must return a constructor function(ctx), not a %s", path, type(made))
  end
  return made, path
end

local function check(policy, what)
  if type(policy) ~= "table" then fail("%s made a %s, not a policy object", what, type(policy)) end
  if type(policy.order) ~= "function" then
    fail("%s: a policy object needs an order method (it has %s)", what,
      policy.order == nil and "none" or "a " .. type(policy.order))
  end
  for _, m in ipairs({ "hedge_after", "observe", "max_in_flight" }) do
    if policy[m] ~= nil and type(policy[m]) ~= "function" then
      fail("%s: %s must be a method, not a %s", what, m, type(policy[m]))
    end
  end
  return policy
end

-- spec: nil (IPFSRT_POLICY, else nothing: the client's built-in order), a name,
-- a FILE.lua, a constructor, a policy object, or {name = NAME|FILE, ...options}
-- (the options reach the constructor as ctx.options). log(line) receives what the
-- policy reports (quarantines and the like). how: {trusted = true} runs a policy
-- file with this state's globals instead of the sandbox; max_instructions and
-- max_memory bound its file's and constructor's run (nil: the defaults).
function M.load(spec, gateways, log, how)
  how = how or {}
  if spec == nil then
    spec = os.getenv("IPFSRT_POLICY")
    if spec == nil or spec == "" then return nil end
  end
  local options = {}
  if type(spec) == "table" and spec.order == nil and spec.name ~= nil then -- {name = ..., option = ...}
    if type(spec.name) ~= "string" then fail("a policy's name must be a string, not a %s", type(spec.name)) end
    options, spec = spec, spec.name
  end
  local ctx = {gateways = gateways or {}, log = log or function() end, options = options}
  local what = "the policy"
  if type(spec) == "string" then
    spec, what = load_file(find(spec), how)
    what = "policy " .. what
  end
  if type(spec) == "function" then
    local ok, made = core.budget_call(how, spec, ctx)
    if not ok then fail("%s failed to start: %s", what, tostring(made)) end
    return check(made, what), what
  end
  return check(spec, what), what
end

return M
