-- ipfsrt.dataset.methods: what an object of the dataset toolkit answers when asked
-- for a name it does not have: an error that lists the names it has (a
-- misspelt or missing method is otherwise Lua's bare "attempt to call a nil
-- value").
local ipfsrt = require "ipfsrt"

local M = {}

-- The public methods of class (names not starting with "_"), sorted.
function M.names(class)
  local out = {}
  for k, v in pairs(class) do
    if type(k) == "string" and k:sub(1, 1) ~= "_" and type(v) == "function" then out[#out + 1] = k end
  end
  table.sort(out)
  return out
end

-- The error for name, asked of an object of kind (and what else it holds).
function M.missing(kind, class, name, also)
  error(ipfsrt.error.new("not_found", string.format("%s has no method or field %s (methods: %s%s)", kind,
    tostring(name), table.concat(M.names(class), ", "), also or "")), 3)
end

-- An __index for class: its methods; other names starting with "_" nil
-- (internal fields looked up and not set), the rest an error naming the
-- kind of object (kind, or kind(object)).
function M.index(class, kind)
  return function(object, k)
    local method = rawget(class, k)
    if method ~= nil then return method end
    if type(k) ~= "string" or k:sub(1, 1) == "_" then return nil end
    M.missing(type(kind) == "function" and kind(object) or kind, class, k)
  end
end

-- The keys of t (names), sorted.
function M.sorted_names(t)
  local names = {}
  for name in pairs(t) do names[#names + 1] = name end
  table.sort(names)
  return names
end

return M
