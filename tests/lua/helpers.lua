-- Shared by the busted specs: fixtures and the blocks @ipld/car read from them.
local ipfsrt = require "ipfsrt"

local M = {}

M.fixtures = "tests/fixtures/"

function M.read(path)
  local f = assert(io.open(path, "rb"))
  local data = f:read("a")
  f:close()
  return data
end

function M.write(path, data)
  local f = assert(io.open(path, "wb"))
  f:write(data)
  f:close()
end

-- { roots = {cid strings}, blocks = {{cid = string, bytes = string}, ...} }
function M.expected(name)
  local all = ipfsrt.json.decode(M.read(M.fixtures .. "expected.json"))
  local e = all[name]
  for _, b in ipairs(e.blocks) do
    b.bytes = ipfsrt.multibase.decode("M" .. b.bytes)
  end
  return e
end

-- Catches an ipfsrt error object raised by f(...).
function M.catch(f, ...)
  local ok, err = pcall(f, ...)
  assert(not ok, "expected an error")
  assert(ipfsrt.error.is(err), "expected an ipfsrt error object, got " .. tostring(err))
  return err
end

return M
