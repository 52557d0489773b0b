-- Command-line parsing for the CLI subcommands. Options may come before or after
-- positional arguments; "--" ends options.
local ipfsrt = require "ipfsrt"

local M = {}

local function usage_error(fmt, ...)
  error(ipfsrt.error.new("usage", string.format(fmt, ...)), 0)
end
M.usage_error = usage_error

-- spec: { name = "string" | "boolean" | "list", ... } ("list" options may repeat and
-- collect their values in order), aliases: { o = "output", ... }
-- Returns positional (array) and options (table).
function M.parse(args, spec, aliases)
  aliases = aliases or {}
  local positional, options = {}, {}
  local i, only_positional = 1, false
  while i <= #args do
    local a = args[i]
    if only_positional or a == "-" or a:sub(1, 1) ~= "-" then
      positional[#positional + 1] = a
    elseif a == "--" then
      only_positional = true
    else
      local name, value = a:match("^%-%-([^=]+)=(.*)$")
      name = name or a:match("^%-%-(.+)$") or aliases[a:sub(2)]
      if not name or not spec[name] then usage_error("unknown option %s", a) end
      if spec[name] == "boolean" then
        if value then usage_error("option --%s takes no value", name) end
        options[name] = true
      else
        if not value then
          i = i + 1
          value = args[i]
          if not value then usage_error("option --%s needs a value", name) end
        end
        if spec[name] == "list" then
          options[name] = options[name] or {}
          table.insert(options[name], value)
        else
          options[name] = value
        end
      end
    end
    i = i + 1
  end
  return positional, options
end

-- Refuses an output path where anything stands already (a file, a folder, a
-- link, dangling or not) unless force; how_to_force says how to ask for it.
function M.check_output(path, force, how_to_force)
  if force or path:find("^s3://") then return end
  local kind = require("ipfsrt.core").zarr.path_kind(path)
  if kind == "none" then return end
  error(ipfsrt.error.new("io", string.format("%s already exists (a %s); not overwriting it (%s replaces it)", path,
    kind == "link" and "symbolic link" or kind, how_to_force or "--force")), 0)
end

-- The value of --name as a whole number (nil when absent); min is the least
-- allowed (default 0).
function M.whole(opts, name, min)
  local v = opts[name]
  if v == nil then return nil end
  local n = math.tointeger(tonumber(v))
  min = min or 0
  if not n or n < min then
    usage_error("--%s needs a whole number%s", name, min > 0 and " of at least " .. min or "")
  end
  return n
end

-- The value of --name as a positive number of any kind (seconds and the like).
-- "10G", "512M", "4096": bytes (K, M, G, T are powers of 1024).
function M.bytes(opts, name)
  local v = opts[name]
  if v == nil then return nil end
  local n, unit = tostring(v):match("^(%d+)([KMGTkmgt]?)$")
  local scale = ({ [""] = 1, k = 1 << 10, m = 1 << 20, g = 1 << 30, t = 1 << 40 })[(unit or ""):lower()]
  n = n and math.tointeger(tonumber(n))
  if not n or n <= 0 or not scale or n > math.maxinteger // scale then
    usage_error("--%s needs a size in bytes (a number, with K, M, G or T)", name)
  end
  return n * scale
end

function M.positive(opts, name)
  local v = opts[name]
  if v == nil then return nil end
  local n = tonumber(v)
  if not n or n <= 0 then usage_error("--%s needs a positive number", name) end
  return n
end

return M
