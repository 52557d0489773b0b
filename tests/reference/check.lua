-- The C reference's check: doxygen warned about nothing (WARNINGS: every
-- function's parameters and return, every field, value and macro written);
-- every function a header exports has its errors (@errors, for each function
-- returning an ipfsrt_status) and its ownership (@owner, for each function
-- that returns a pointer, hands out an object through a T **, takes a
-- callback or a user pointer, or makes or frees something), and a man page
-- in MAN3, as has every typedef'd options struct; no page made a troff
-- warning (TROFF). Usage: lua5.4 check.lua WARNINGS TROFF MAN3 HEADER...
local warnings_file, troff_file, man3 = arg[1], arg[2], arg[3]
local headers = { table.unpack(arg, 4) }

local function read(path)
  local f = assert(io.open(path, "r"))
  local s = f:read("a")
  f:close()
  return s
end

-- Each exported declaration of a header with the comment just before it.
local function declarations(text)
  local out = {}
  local pos = 1
  while true do
    local s, e, mark = text:find("\n(IPFSRT_%u+)%s", pos)
    if not s then break end
    local stop = text:find(";", e, true)
    local decl = text:sub(s + 1, stop)
    local name = decl:match("([%w_]+)%s*%(")
    -- the comment ending right before the declaration
    local before = text:sub(1, s)
    local comment = before:match(".*(/%*.-%*/)%s*$") or ""
    if mark == "IPFSRT_API" or mark == "IPFSRT_EXPERIMENTAL" then
      out[#out + 1] = { name = name, decl = decl, comment = comment }
    end
    pos = stop
  end
  return out
end

local function needs_owner(d)
  local ret = d.decl:match("^IPFSRT_%u+%s+(.-)[%w_]+%s*%(")
  return ret:find("*", 1, true) or d.decl:find("%*%*") or d.decl:find("_fn ") or d.decl:find("void %*user")
    or d.name:match("_new$") or d.name:match("_free$") or d.name:match("_init$")
end

local problems, documented, pending, total, types = {}, 0, {}, 0, 0
for _, file in ipairs { warnings_file, troff_file } do
  for line in read(file):gmatch("[^\n]+") do problems[#problems + 1] = line end
end
for _, path in ipairs(headers) do
  local text = read(path)
  local decls = declarations("\n" .. text)
  total = total + #decls
  if not text:match("^/%*%* @file") then
    if #decls > 0 then pending[#pending + 1] = string.format("%s (%d)", path:match("[^/]+$"), #decls) end
  else
    local base = path:match("[^/]+$")
    for name in text:gmatch("\n} (ipfsrt_[%w_]*options);") do
      types = types + 1
      local page = io.open(man3 .. "/" .. name .. ".3", "r")
      if page then page:close() else problems[#problems + 1] = base .. ": " .. name .. " lacks a man page" end
    end
    for _, d in ipairs(decls) do
      documented = documented + 1
      local function lacks(what) problems[#problems + 1] = string.format("%s: %s lacks %s", base, d.name, what) end
      if not d.comment:match("^/%*%*") then lacks("a /** comment") end
      if d.decl:match("^IPFSRT_%u+%s+ipfsrt_status%s") and not d.comment:find("@errors", 1, true) then
        lacks("@errors")
      end
      if needs_owner(d) and not d.comment:find("@owner", 1, true) then lacks("@owner") end
      local page = io.open(man3 .. "/" .. d.name .. ".3", "r")
      if page then page:close() else lacks("a man page") end
    end
  end
end
for _, p in ipairs(problems) do print(p) end
print(string.format("reference: %d of %d exported functions and %d options structs documented, each with its man " ..
  "page; 0 doxygen and troff warnings%s", documented, total, types,
  #pending > 0 and "; headers still to document: " .. table.concat(pending, ", ") or ""))
os.exit(#problems == 0 and 0 or 1)
