-- The Lua reference (lua/README.md, "Every method") names every method of
-- every object of the dataset toolkit, the same list an unknown name's error
-- gives (ipfsrt.dataset.methods).
local methods = require "ipfsrt.dataset.methods"

local function section()
  local f = assert(io.open("lua/README.md", "rb"))
  local text = f:read("a")
  f:close()
  return assert(text:match("### Every method(.-)\n#"), "lua/README.md has no section \"Every method\"")
end

describe("the reference's list of methods", function()
  local text = section()
  local classes = {
    Dataset = require("ipfsrt.dataset").Dataset, Variable = require("ipfsrt.dataset").Variable,
    groupby = require("ipfsrt.dataset.groupby").GroupBy, rolling = require("ipfsrt.dataset.rolling").Rolling,
    coarsen = require("ipfsrt.dataset.coarsen").Coarsen,
  }
  for kind, class in pairs(classes) do
    it("names every method of a " .. kind, function()
      for _, name in ipairs(methods.names(class)) do
        assert.truthy(text:find("`" .. name .. "`", 1, true) or text:find("`" .. name .. "(", 1, true) or
          text:find("`" .. name .. "{", 1, true), kind .. ": " .. name .. " is not in lua/README.md's list")
      end
    end)
  end
end)
