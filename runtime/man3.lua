-- The C reference as man pages, from the public headers' comments: a page
-- per exported function (its own synopsis: the #include, the prototype;
-- parameters, return value, errors, ownership, stability, library), a page
-- per documented struct and enum (each field or value with what its comment
-- says: defaults and units), and ipfsrt(3) for what ipfsrt.h states once.
-- No doxygen needed (make reference runs it to check the comments).
-- Usage: lua5.4 man3.lua OUT_DIR VERSION INCLUDE_DIR
local out_dir, version, include = arg[1], arg[2], arg[3]

-- Which library each header's functions are in.
local library = {
  ["server.h"] = "libipfsrt-server (pkg-config ipfsrt-server)",
  ["s3.h"] = "libipfsrt-s3 (pkg-config ipfsrt-s3)",
  ["netcdf.h"] = "libipfsrt-netcdf (pkg-config ipfsrt-netcdf)",
  ["refs.h"] = "libipfsrt-netcdf (pkg-config ipfsrt-netcdf)",
  ["lua.h"] = "libipfsrt-lua (pkg-config ipfsrt-lua)",
  ["image.h"] = "libipfsrt-lua (pkg-config ipfsrt-lua)",
}

local function read(path)
  local f = assert(io.open(path, "rb"))
  local s = f:read("a")
  f:close()
  return s
end

local function write(path, text)
  local f = assert(io.open(path, "wb"))
  f:write(text)
  f:close()
end

-- Text made safe for troff: backslashes escaped, no line starting with a
-- control character.
local function roff(text)
  text = text:gsub("\\", "\\e"):gsub("[\xC2-\xF4][\x80-\xBF]*", function(c)
    return string.format("\\[u%04X]", utf8.codepoint(c))
  end)
  return (text:gsub("\n([%.'])", "\n\\&%1"):gsub("^([%.'])", "\\&%1"))
end

-- A comment's text: the markers and each line's leading " * " removed.
local function comment_text(c)
  c = c:gsub("^/%*%*<?", ""):gsub("%*/$", "")
  local lines = {}
  for line in (c .. "\n"):gmatch("(.-)\n") do
    lines[#lines + 1] = (line:gsub("^%s*%* ?", ""):gsub("^%s+", ""))
  end
  return (table.concat(lines, "\n"):gsub("^%s+", ""):gsub("%s+$", ""):gsub("\\@", "@"))
end

-- A function comment split into its description and tags.
local function parse_doc(text)
  local doc = { params = {}, description = {} }
  local current
  for line in (text .. "\n"):gmatch("(.-)\n") do
    local tag, rest = line:match("^@(%w+)%s*(.*)$")
    if tag == "param" then
      local name, what = rest:match("^([%w_]+)%s*(.*)$")
      current = { name = name, text = what }
      doc.params[#doc.params + 1] = current
    elseif tag then
      current = { text = rest }
      doc[tag] = current
    elseif current then
      current.text = current.text .. " " .. line
    else
      doc.description[#doc.description + 1] = line
    end
  end
  doc.description = table.concat(doc.description, "\n"):gsub("%s+$", "")
  return doc
end

local function first_sentence(text)
  local s = text:gsub("\n", " "):match("^(.-%.)%s") or text:gsub("\n", " ")
  return (s:gsub("%.$", ""))
end

local function section(title, body)
  if not body or body == "" then return "" end
  return ".SH " .. title .. "\n" .. roff(body) .. "\n"
end

local function page_head(name, summary)
  return string.format('.TH %s 3 "" "ipfsrt %s" "ipfsrt C reference"\n.SH NAME\n%s \\- %s\n',
    name:upper(), version, name, roff(summary))
end

local function function_page(header, mark, decl, doc)
  local name = decl:match("([%w_]+)%s*%(")
  local proto = decl:gsub("^IPFSRT_[%u_]+%s+", ""):gsub("%s*IPFSRT_PRINTF%b()", ""):gsub("%s+", " ")
  proto = proto:gsub("%( ", "("):gsub(" %)", ")")
  local t = { page_head(name, first_sentence(doc.description)) }
  local experimental = mark == "IPFSRT_EXPERIMENTAL"
  t[#t + 1] = ".SH SYNOPSIS\n.nf\n"
  if experimental then t[#t + 1] = ".B #define IPFSRT_EXPERIMENTAL_API\n" end
  t[#t + 1] = ".B #include <ipfsrt/" .. header .. ">\n.PP\n" .. roff(proto) .. "\n.fi\n"
  t[#t + 1] = section("DESCRIPTION", doc.description)
  if #doc.params > 0 then
    t[#t + 1] = ".SH PARAMETERS\n"
    for _, p in ipairs(doc.params) do t[#t + 1] = ".TP\n.I " .. p.name .. "\n" .. roff(p.text) .. "\n" end
  end
  t[#t + 1] = section("RETURN VALUE", doc["return"] and doc["return"].text)
  t[#t + 1] = section("ERRORS", doc.errors and doc.errors.text)
  t[#t + 1] = section("OWNERSHIP AND LIFETIME", doc.owner and doc.owner.text)
  t[#t + 1] = section("STABILITY", experimental
    and "Experimental (version node IPFSRT_EXPERIMENTAL_2): it may change in any release; a host defines IPFSRT_EXPERIMENTAL_API before its includes to call it, and builds against the version it runs with."
    or "Stable (version node IPFSRT_2): kept compatible for as long as the soname stays.")
  t[#t + 1] = section("LIBRARY", library[header] or "libipfsrt (pkg-config ipfsrt)")
  t[#t + 1] = ".SH SEE ALSO\n.BR ipfsrt (3)\n"
  return name, table.concat(t)
end

-- A struct's or enum's members, each with its comment: one before it
-- ("/** ...") or after it ("/**< ..."), over as many lines as it takes.
local function members(body, kind)
  local items, pending, pos = {}, nil, 1
  local stop = kind == "enum" and "," or ";"
  while true do
    pos = body:find("%S", pos)
    if not pos then break end
    if body:sub(pos, pos + 3) == "/**<" or body:sub(pos, pos + 1) == "/*" then
      local close = assert(body:find("*/", pos + 2, true))
      local text = comment_text(body:sub(pos, close + 1))
      if body:sub(pos, pos + 3) == "/**<" and #items > 0 then
        items[#items].doc = (items[#items].doc and items[#items].doc .. " " or "") .. text
      else
        pending = text
      end
      pos = close + 2
    else
      local depth, i = 0, pos
      while i <= #body do
        local ch = body:sub(i, i)
        if ch == "(" or ch == "{" then depth = depth + 1 elseif ch == ")" or ch == "}" then depth = depth - 1 end
        if depth == 0 and (ch == stop or body:sub(i, i + 1) == "/*") then break end
        i = i + 1
      end
      local code = body:sub(pos, i - 1):gsub("/%*.-%*/", ""):gsub("%s+", " "):gsub("%s+$", "")
      if code ~= "" then items[#items + 1] = { code = code .. (kind == "enum" and "" or ";"), doc = pending } end
      pending = nil
      pos = body:sub(i, i) == stop and i + 1 or i
    end
  end
  return items
end

-- A struct's or enum's page: each member with its comment.
local function type_page(header, kind, name, doc, body)
  local t = { page_head(name, first_sentence(doc)) }
  t[#t + 1] = ".SH SYNOPSIS\n.nf\n.B #include <ipfsrt/" .. header .. ">\n.fi\n"
  t[#t + 1] = section("DESCRIPTION", doc)
  t[#t + 1] = ".SH " .. (kind == "enum" and "VALUES" or "FIELDS") .. "\n"
  for _, m in ipairs(members(body, kind)) do
    t[#t + 1] = ".TP\n.B " .. roff(m.code) .. "\n" .. roff(m.doc or "") .. "\n"
  end
  t[#t + 1] = ".SH SEE ALSO\n.BR ipfsrt (3)\n"
  return table.concat(t)
end

local pages = 0
local function emit(name, text)
  write(out_dir .. "/" .. name .. ".3", text)
  pages = pages + 1
end

local list = io.popen("ls " .. include .. "/ipfsrt/*.h")
local headers = {}
for path in list:lines() do headers[#headers + 1] = path end
list:close()
local index = {}
for _, path in ipairs(headers) do
  local header = path:match("([^/]+)$")
  local text = read(path)
  -- Each marked declaration and each typedef'd struct or enum, with the
  -- comment that ends right before it.
  local function comment_before(pos)
    return text:sub(1, pos):match(".*(/%*%*.-%*/)%s*$")
  end
  local pos = 1
  while true do
    local s, e, mark = text:find("\n(IPFSRT_[%u_]+) ", pos)
    if not s then break end
    local decl = text:sub(s + 1):match("^[^;]-%b()")
    local comment = comment_before(s)
    if decl and comment and (mark == "IPFSRT_API" or mark == "IPFSRT_EXPERIMENTAL") then
      local name, page = function_page(header, mark, decl, parse_doc(comment_text(comment)))
      emit(name, page)
      index[#index + 1] = { name = name, header = header }
    end
    pos = e
  end
  pos = 1
  while true do
    local s, e, kind = text:find("\ntypedef (%a+) [%w_]+ {", pos)
    if not s then break end
    local body, name = text:sub(e):match("^(%b{})%s*([%w_]+);")
    local comment = comment_before(s)
    if body and comment and (kind == "struct" or kind == "enum") then
      emit(name, type_page(header, kind, name, comment_text(comment), body:sub(2, -2)))
    end
    pos = e
  end
end
-- ipfsrt(3): the conventions ipfsrt.h states once, and where each function is.
local conventions = comment_text(read(include .. "/ipfsrt.h"):match("^(/%*.-%*/)"):gsub("^/%*", "/**"))
local described = {}
for line in (conventions .. "\n"):gmatch("(.-)\n") do
  local item = line:match("^%- (.*)$")
  described[#described + 1] = item and ".IP \\(bu 2\n" .. roff(item) or roff(line)
end
local t = { page_head("ipfsrt", "verified reading of content-addressed data: the C API"),
            ".SH SYNOPSIS\n.nf\n.B #include <ipfsrt.h>\n.fi\n.SH DESCRIPTION\n", table.concat(described, "\n"),
            "\n.SH FUNCTIONS\n" }
for _, e in ipairs(index) do t[#t + 1] = ".TP\n.BR " .. e.name .. " (3)\n<ipfsrt/" .. e.header .. ">\n" end
emit("ipfsrt", table.concat(t))
print(string.format("man3: %d pages in %s", pages, out_dir))
