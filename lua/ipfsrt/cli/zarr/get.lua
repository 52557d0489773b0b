-- ipfsrt zarr get: an array's values (a selection by index or by label),
-- as text or CSV, decoded (CF) or as stored.
local ipfsrt = require "ipfsrt"
local argparse = require "ipfsrt.argparse"
local fetchcli = require "ipfsrt.fetchcli"
local cftime = require "ipfsrt.dataset.cftime"
local with_store = require("ipfsrt.cli.zarr.open").with_store

local M = {}

-- numpy's selection syntax: "i", "a:b", "a:b:c", ":" per dimension, commas between.
function M.parse_selection(text)
  local sel = {}
  if text == nil or text == "" then return sel end
  local d = 0
  for part in (text .. ","):gmatch("([^,]*),") do
    d = d + 1
    part = part:gsub("%s", "")
    local function num(s)
      if s == "" then return nil end
      local n = math.tointeger(tonumber(s))
      if not n then argparse.usage_error("selection part %d: %q is not an integer", d, s) end
      return n
    end
    if not part:find(":", 1, true) then
      if part == "" then argparse.usage_error("selection part %d is empty", d) end
      sel[d] = num(part)
    else
      local a, b, c = part:match("^([^:]*):([^:]*):?([^:]*)$")
      if not a then argparse.usage_error("selection part %d: %q is not start:stop:step", d, part) end
      local step = num(c) or 1
      if step == 0 then argparse.usage_error("selection part %d: a step of 0", d) end
      sel[d] = { num(a), num(b), step }
    end
  end
  return sel
end

-- Strings quoted; numbers as x:strings() gives them, every digit kept.
local function csv_value(v, is_text)
  if is_text then return '"' .. v:gsub('"', '""') .. '"' end
  return v
end

-- Where a selection's positions start along each kept dimension, and their
-- step, in the array's own indices (numpy's slice.indices).
local function kept_positions(shape, sel)
  local kept = {}
  for d, n in ipairs(shape) do
    local part = sel[d]
    if part == nil then
      kept[#kept + 1] = { dim = d, start = 0, step = 1 }
    elseif type(part) == "table" then
      local step, start = part[3], part[1]
      if start == nil then start = step > 0 and 0 or n - 1
      elseif start < 0 then start = math.max(start + n, step > 0 and 0 or -1)
      else start = math.min(start, step > 0 and n or n - 1) end
      kept[#kept + 1] = { dim = d, start = start, step = step }
    end
  end
  return kept
end

-- A header (the dimensions' names, then the array's), then one row per value:
-- its position in the array along each dimension, and the value; the shape of
-- --decode's CSV, positions standing for coordinate labels.
local function write_csv(a, name, sel, x)
  local out, text = io.stdout, x.dtype == "bytes"
  local values = x:strings()
  local kept = kept_positions(a.shape, sel)
  local header = {}
  for i, k in ipairs(kept) do
    local dim = a.dimension_names and a.dimension_names[k.dim]
    header[i] = (dim ~= nil and dim ~= ipfsrt.null) and dim or ("dim_" .. (k.dim - 1))
  end
  header[#header + 1] = name
  out:write(table.concat(header, ","), "\n")
  local idx = {}
  for d = 1, x.ndim do idx[d] = 0 end
  for n = 1, x.size do
    local line = {}
    for d = 1, x.ndim do line[d] = kept[d].start + idx[d] * kept[d].step end
    line[#line + 1] = csv_value(values[n], text)
    out:write(table.concat(line, ","), "\n")
    for d = x.ndim, 1, -1 do
      idx[d] = idx[d] + 1
      if idx[d] < x.shape[d] then break end
      idx[d] = 0
    end
  end
end

-- A bar on stderr, on a terminal only, once a read has taken a second.
local function chunk_progress(opts)
  if opts.quiet or not ipfsrt.isatty(io.stderr) then return nil, function() end end
  local start, shown = ipfsrt.clock(), false
  local function bar(done, total)
    if ipfsrt.clock() - start < 1 then return end
    shown = true
    local width = 30
    local fill = total > 0 and math.floor(done / total * width) or width
    io.stderr:write(string.format("\r[%s%s] %d of %d chunks\27[K", string.rep("#", fill),
      string.rep(" ", width - fill), done, total))
  end
  return bar, function() if shown then io.stderr:write("\r\27[K") end end
end

local function date_like(s) return cftime.period(s, cftime.calendar("proleptic_gregorian")) ~= nil end

-- The two ends of a range FROM:TO, or nil for a single label. Times hold
-- colons of their own ("2024-01-05T12:00"): a colon splits a range only where
-- both sides are dates, or both numbers, or both names.
local function range_ends(v)
  if date_like(v) or tonumber(v) then return nil end
  for at in v:gmatch("():") do
    local from, to = v:sub(1, at - 1), v:sub(at + 1)
    if from ~= "" and to ~= "" and ((date_like(from) and date_like(to)) or (tonumber(from) and tonumber(to))
        or not (date_like(from) or date_like(to) or tonumber(from) or tonumber(to) or from:find(":") or to:find(":"))) then
      return from, to
    end
  end
  return nil
end

-- --sel "time=2024-02-29,lat=20:60": a label, or a range FROM:TO, per dimension.
function M.parse_labels(text)
  local spec = {}
  for part in (text .. ","):gmatch("([^,]*),") do
    local k, v = part:match("^%s*([%a_][%w_]*)%s*=%s*(.-)%s*$")
    if not k or v == "" then argparse.usage_error("--sel: %q is not DIM=LABEL or DIM=FROM:TO", part) end
    local from, to = range_ends(v)
    local function label(s) return tonumber(s) or s end
    spec[k] = from and { label(from), label(to) } or label(v)
  end
  return spec
end

-- The variable through the dataset layer: positions (SELECTION) by dimension,
-- then labels; CF-decoded.
local function decoded_variable(store, name, sel, labels, opts)
  local ds = ipfsrt.dataset.open(store)
  local v = ds.vars[name] or ds.coords[name]
  if not v then
    argparse.usage_error("no variable %s in the dataset (variables: %s)", name, table.concat(ds:names(), ", "))
  end
  local by_dim = {}
  for i, part in ipairs(sel) do
    if v.dims[i] == nil then argparse.usage_error("%s has %d dimensions", name, #v.dims) end
    by_dim[v.dims[i]] = part
  end
  if next(by_dim) then v = v:isel(by_dim) end
  if labels then
    labels.method = opts.method
    labels.tolerance = opts.tolerance and (tonumber(opts.tolerance) or opts.tolerance)
    v = v:sel(labels)
  end
  return v
end

function M.run(url, rest, opts)
  if #rest < 1 or #rest > 2 then argparse.usage_error("zarr get needs URL, ARRAY and maybe a SELECTION") end
  if opts.json and opts.csv then argparse.usage_error("--json and --csv go one at a time") end
  local sel = M.parse_selection(rest[2])
  local labels = opts.sel and M.parse_labels(opts.sel)
  if (opts.method or opts.tolerance) and not labels then argparse.usage_error("--method and --tolerance go with --sel") end
  if opts.method and opts.method ~= "nearest" then argparse.usage_error("--method: %q is not nearest", opts.method) end
  if opts.tolerance and not opts.method then argparse.usage_error("--tolerance goes with --method nearest") end
  if opts.decode or labels then
    return with_store(url, opts, function(store)
      local v = decoded_variable(store, rest[1], sel, labels, opts)
      if opts.csv then return v:to_csv("/dev/stdout") end -- a header, a column per coordinate, as pandas
      local x = v:_values_array()
      if opts.json then print(x:tojson()) else print(tostring(x)) end
    end)
  end
  with_store(url, opts, function(store)
    local a = ipfsrt.zarr.open(store, { path = rest[1] == "." and "" or rest[1] })
    if not a.is_array then argparse.usage_error("%s is a group, not an array", rest[1]) end
    local bar, clear = chunk_progress(opts)
    local read_ok, x = pcall(a.read, a, sel, { progress = bar })
    clear()
    if not read_ok then error(x, 0) end
    if opts.json then print(x:tojson())
    elseif opts.csv then write_csv(a, rest[1] == "." and (url:match("([^/]+)/*$") or "value") or rest[1], sel, x)
    else print(tostring(x)) end
  end)
end

return M
