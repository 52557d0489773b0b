-- The ten analyses of lua/README.md, ipfsrt's side: each ```lua block under
-- "### Analysis" run in turn (ds, dir, ipfsrt given), each block's `result`
-- compared with the Python block's beside it (tests/dataset/analyses.py ran
-- them with xarray), and each Lua block at most one line longer.
-- Usage: ipfsrt analyses.lua lua/README.md SAMPLE_DIR OUT_DIR XARRAY.json
local ipfsrt = require "ipfsrt"
local readme, sample, out_dir, answers_path = arg[1], arg[2], arg[3], arg[4]
local want_all = ipfsrt.json.decode(assert(io.open(answers_path)):read("a"))
local compare = dofile((arg[0]:match("^(.*)/") or ".") .. "/compare.lua")

-- The title and the first ```lua block under each #### heading of "### Analysis".
local function blocks(path)
  local text = assert(io.open(path)):read("a")
  local section = text:match("\n### Analysis\n(.-)\n### ") or error("README has no ### Analysis section")
  local out, at = {}, section:find("\n#### ", 1, true)
  while at do
    local next_at = section:find("\n#### ", at + 1, true)
    local part = section:sub(at + 6, (next_at or #section + 1) - 1)
    out[#out + 1] = { title = part:match("^[^\n]*"), code = part:match("```lua\n(.-)```") }
    at = next_at
  end
  return out
end

local function lines(code)
  local n = 0
  for line in code:gmatch("[^\n]+") do if line:match("%S") then n = n + 1 end end
  return n
end

-- A result as analyses.py writes xarray's.
local function as_json(x)
  if type(x) == "table" and x.dims and x.values then
    local labels, coords = {}, x:_coords()
    for _, d in ipairs(x.dims) do
      local c = coords[d]
      if c then
        local ok, dates = pcall(c.dates, c)
        labels[d] = ok and dates or (rawget(c, "_labels") or c:values():astype("float64"):tolist())
      end
    end
    return { dims = x.dims, labels = labels, values = compare.numbers(x) }
  end
  if type(x) == "string" and io.open(x) then return { file = assert(io.open(x)):read("a") } end
  if type(x) == "table" then
    local out = {}
    for i, v in ipairs(x) do out[i] = as_json(v) end
    return out
  end
  return x
end

-- Rolling means: bottleneck's running sums drift; weighted means: xarray's dot
-- sums float32 in float32 along a million values. Others: rounding of sums.
local function tolerance(title)
  if title:find("rolling") or title:find("weighted") or title:find("warmest") then return 1e-5 end
  return 1e-6
end

os.execute("mkdir -p '" .. out_dir .. "'")
local env = setmetatable({ ipfsrt = ipfsrt, ds = ipfsrt.dataset.open(sample):isel { zlev = 0 }, dir = out_dir }, { __index = _G })
local bad, list = 0, blocks(readme)
assert(#list == #want_all, string.format("%d Lua analyses, %d Python ones", #list, #want_all))
for i, b in ipairs(list) do
  local want = want_all[i]
  env.result = nil
  local chunk = assert(load(b.code, "=lua/README.md " .. b.title, "t", env))
  local ok, err = pcall(chunk)
  local problem = not ok and ("failed: " .. tostring(type(err) == "table" and err.message or err))
  problem = problem or compare.same(as_json(env.result), want.result, "result", tolerance(b.title))
  if not problem and lines(b.code) > want.lines + 1 then
    problem = string.format("%d lines of Lua against xarray's %d", lines(b.code), want.lines)
  end
  if problem then
    bad = bad + 1
    print(string.format("%s: %s", b.title, problem))
  else
    print(string.format("%s: as xarray's (%d lines, xarray %d)", b.title, lines(b.code), want.lines))
  end
end
print(string.format("the analyses of lua/README.md agree with xarray's: %d of %d", #list - bad, #list))
os.exit(bad == 0 and 0 or 1)
