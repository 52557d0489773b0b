-- Gateway selection policies: loading them by name, file, constructor or object.
-- A policy object answers
--   policy:order(request, gateways) -> the gateways to try, best first
--   policy:hedge_after(request)     -> ms to wait before racing the next one (optional)
--   policy:observe(gateway, outcome, request)                               (optional)
-- gateways are {url =, index =} tables; request is {kind, path, query, attempt};
-- outcome is {ok, verified, error, verification_failed, status, latency, duration,
-- bytes, detail} (seconds). Named policies live in scripts/policies/NAME.lua and
-- return a constructor: function(ctx) -> policy, ctx = {gateways =, log =}.
local M = {}

local function dirname(path) return path:match("^(.*)/[^/]*$") or "." end

-- Where named policies are looked for: IPFSRT_POLICY_PATH (colon-separated), then
-- scripts/policies beside each Lua directory on package.path (the source tree and
-- the installed share/ipfsrt).
function M.search_dirs()
  local dirs, seen = {}, {}
  local function add(d)
    if d and d ~= "" and not seen[d] then seen[d] = true; dirs[#dirs + 1] = d end
  end
  for d in (os.getenv("IPFSRT_POLICY_PATH") or ""):gmatch("[^:]+") do add(d) end
  for template in package.path:gmatch("[^;]+") do
    local luadir = template:match("^(.*)/%?%.lua$")
    if luadir then add(dirname(luadir) .. "/scripts/policies") end
  end
  return dirs
end

local function find(name)
  if name:find("/", 1, true) or name:match("%.lua$") then return name end
  if not name:match("^[%w_%-]+$") then
    error({code = "bad_argument", message = "policy name '" .. name .. "' is not a name or a .lua file"}, 0)
  end
  for _, dir in ipairs(M.search_dirs()) do
    local path = dir .. "/" .. name .. ".lua"
    local f = io.open(path, "r")
    if f then f:close(); return path end
  end
  error({code = "not_found", message = "no policy named '" .. name .. "' (looked in " ..
    table.concat(M.search_dirs(), ", ") .. ")"}, 0)
end

-- Names of the policies found on the search path.
function M.available()
  local ipfsrt = require "ipfsrt"
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

-- spec: nil (IPFSRT_POLICY, else nothing: the client's built-in order), a name,
-- a FILE.lua, a constructor, a policy object, or {name = NAME|FILE, ...options}
-- (the options reach the constructor as ctx.options). log(line) receives what the
-- policy reports (quarantines and the like).
function M.load(spec, gateways, log)
  if spec == nil then
    spec = os.getenv("IPFSRT_POLICY")
    if spec == nil or spec == "" then return nil end
  end
  local options = {}
  if type(spec) == "table" and spec.order == nil and spec.name then -- {name = ..., option = ...}
    options, spec = spec, spec.name
  end
  local ctx = {gateways = gateways or {}, log = log or function() end, options = options}
  if type(spec) == "string" then
    local path = find(spec)
    local chunk, err = loadfile(path)
    if not chunk then
      error({code = "bad_argument", message = "policy " .. path .. ": " .. tostring(err)}, 0)
    end
    spec = chunk()
    if type(spec) ~= "function" and type(spec) ~= "table" then
      error({code = "bad_argument", message = "policy " .. path .. " must return a constructor"}, 0)
    end
  end
  local policy = spec
  if type(spec) == "function" then policy = spec(ctx) end
  if type(policy) ~= "table" or type(policy.order) ~= "function" then
    error({code = "bad_argument", message = "a policy is an object with an order method"}, 0)
  end
  return policy
end

return M
