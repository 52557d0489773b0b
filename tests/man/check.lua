-- The man page (runtime/ipfsrt.1) and the subcommands' --help agree: each
-- subcommand in lua/ipfsrt/cli/ has a section, and the options its --help
-- names are the ones its section names (the fetching ones with the shared
-- GATEWAY OPTIONS); the page renders without warnings.
-- Usage: ipfsrt tests/man/check.lua runtime/ipfsrt.1 EXE
local page_path, exe = assert(arg[1]), assert(arg[2])
local page = assert(io.open(page_path, "rb")):read("a")

local function run(cmd)
  local p = assert(io.popen(cmd .. " 2>&1", "r"))
  local out = p:read("a")
  return p:close(), out
end

local function options(text)
  local set = {}
  for o in text:gmatch("%-%-([a-z][a-z%-]*[a-z])") do set[o] = true end
  return set
end

local function differ(a, b)
  local out = {}
  for k in pairs(a) do if not b[k] then out[#out + 1] = "--" .. k end end
  table.sort(out)
  return out
end

-- roff's \- is a hyphen
local plain = page:gsub("\\%-", "-")
local function section(name) -- a .SS under SUBCOMMANDS, or a .SH
  return plain:match("\n%.SS " .. name .. "\n(.-)\n%.S[SH] ") or plain:match("\n%.SH " .. name .. "\n(.-)\n%.SH ")
end
local shared = options(assert(section("GATEWAY OPTIONS"), "no GATEWAY OPTIONS section"))

local bad = {}
local names = {}
local ok, listing = run("ls lua/ipfsrt/cli/*.lua")
assert(ok, listing)
for file in listing:gmatch("[^\n]+") do
  local name = file:match("([%w_]+)%.lua$")
  if name ~= "init" then names[#names + 1] = name end
end
for _, name in ipairs(names) do
  local text = section(name)
  if not text then
    bad[#bad + 1] = name .. ": no section in the man page"
  else
    local _, help = run(exe .. " " .. name .. " --help")
    local in_help, in_page = options(help), options(text)
    if help:find("\nGateways:", 1, true) then
      for k in pairs(shared) do in_page[k] = true end
    end
    local missing, extra = differ(in_help, in_page), differ(in_page, in_help)
    if #missing > 0 then bad[#bad + 1] = name .. ": --help names, the man page does not: " .. table.concat(missing, " ") end
    if #extra > 0 then bad[#bad + 1] = name .. ": the man page names, --help does not: " .. table.concat(extra, " ") end
  end
end
local rendered, warnings = run("groff -man -Tutf8 -ww -z " .. page_path)
if not rendered or warnings ~= "" then bad[#bad + 1] = "groff: " .. warnings end
assert(#bad == 0, "the man page and --help disagree:\n" .. table.concat(bad, "\n"))
print(string.format("man page: %d subcommands, their options as --help gives them; renders cleanly", #names))
