-- The README runs as written: its "first five minutes" (the shell block and
-- the Lua block) against the demo's sample, made here as `make demo` makes it
-- when it is not there yet, and every link to a file of the repository
-- leads to one. Usage: ipfsrt tests/readme/check.lua README.md
local ipfsrt = require "ipfsrt"

local readme = assert(arg[1], "usage: check.lua README.md")
local text = assert(io.open(readme, "rb")):read("a")

local function sh(cmd)
  local p = assert(io.popen(cmd .. " 2>&1", "r"))
  local out = p:read("a")
  local ok = p:close()
  return ok, out
end

-- the links
local broken = {}
for target in text:gmatch("%]%(([^)#]+)[^)]*%)") do
  if not target:match("^%a+://") and not io.open(target, "r") then broken[#broken + 1] = target end
end
assert(#broken == 0, "README links to files that are not there: " .. table.concat(broken, ", "))

-- the section's blocks, in order
local section = assert(text:match("\n## The first five minutes\n(.-)\n## "), "README has no 'The first five minutes'")
local shell = assert(section:match("```sh\n(.-)```"), "no shell block in 'The first five minutes'")
local lua = assert(section:match("```lua\n(.-)```"), "no Lua block in 'The first five minutes'")

-- the sample, as make demo leaves it
if not io.open("build/demo/oisst-60.root") then
  print("making the demo's sample (60 days) in build/demo ...")
  local ok, out = sh("mkdir -p build/demo && build/ipfsrt scripts/sample/oisst.lua build/demo/oisst-60 --days 60 " ..
    "--car build/demo/oisst-60.car --netcdf build/demo/oisst-60-nc 2>/dev/null")
  assert(ok, out)
  local f = assert(io.open("build/demo/oisst-60.root", "w"))
  f:write(out:match("(%S+)%s*$"))
  f:close()
end

-- the shell block, whole, as a user pastes it
local script = os.tmpname()
assert(io.open(script, "w")):write("set -e\n" .. shell)
local ok, out = sh("bash " .. script)
os.remove(script)
assert(ok, "the README's shell block failed:\n" .. out)
for _, want in ipairs { "sst  int16 [60, 1, 720, 1440]", "units: Celsius", "dtype=float32" } do
  assert(out:find(want, 1, true), "the shell block's output lacks " .. want .. ":\n" .. out)
end

-- the Lua block, with the gateway it expects
local gw <close> = ipfsrt.serve { cars = { "build/demo/oisst-60.car" }, listen = "127.0.0.1:8473" }
local chunk = assert(load(lua, "=README (Lua block)", "t", setmetatable({}, { __index = _G })))
local printed = {}
local real_print = print
print = function(...) -- luacheck: ignore
  local parts = {}
  for i = 1, select("#", ...) do parts[i] = tostring((select(i, ...))) end
  printed[#printed + 1] = table.concat(parts, "\t")
end
local ran, err = pcall(chunk)
print = real_print -- luacheck: ignore
assert(ran, "the README's Lua block failed: " .. tostring(err))
local all = table.concat(printed, "\n")
assert(all:find("Gulf Stream box on 2024%-02%-29: %d+%.%d%d Celsius"), all)
assert(all:find("shape=(60,)", 1, true), all)

-- "Verified reads for any tool": the proxy in front of a local gateway, read by curl and xarray
local proxy_section = assert(text:match("\n## Verified reads for any tool\n(.-)\n## "),
  "README has no 'Verified reads for any tool'")
local proxy_shell = assert(proxy_section:match("```sh\n(.-)```"), "no shell block in 'Verified reads for any tool'")
script = os.tmpname()
assert(io.open(script, "w")):write("set -e\n" .. proxy_shell)
ok, out = sh("bash " .. script)
os.remove(script)
assert(ok, "the README's proxy block failed:\n" .. out)
for _, want in ipairs { '"zarr_format"', '"<i2"' } do
  assert(out:find(want, 1, true), "the proxy block's output lacks " .. want .. ":\n" .. out)
end
assert(out:match("\n%-?%d+%.%d+\n"), "xarray printed no value through the proxy:\n" .. out)
-- "A dataset that grows": the next day appended, served beside the old CAR, read and diffed
local grow_section = assert(text:match("\n## A dataset that grows\n(.-)\n## "), "README has no 'A dataset that grows'")
local grow_shell = assert(grow_section:match("```sh\n(.-)```"), "no shell block in 'A dataset that grows'")
script = os.tmpname()
assert(io.open(script, "w")):write("set -e\n" .. grow_shell)
ok, out = sh("bash " .. script)
os.remove(script)
assert(ok, "the README's growth block failed:\n" .. out)
for _, want in ipairs { "dtype=float32", "~ sst: shape [60, 1, 720, 1440] -> [61, 1, 720, 1440]; chunks 8 added",
  "time [60, 61) 2024-03-01T12:00:00" } do
  assert(out:find(want, 1, true), "the growth block's output lacks " .. want .. ":\n" .. out)
end
print("README: links, and the blocks of 'The first five minutes', 'Verified reads for any tool' and " ..
  "'A dataset that grows' run as written")
