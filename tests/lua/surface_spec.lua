-- The public Lua surface: the ipfsrt table holds the names the Lua reference
-- (lua/README.md) documents and nothing else (internals live in require "ipfsrt.core"), and
-- every name it holds is documented there.
local ipfsrt = require "ipfsrt"

local function readme()
  local f = assert(io.open("lua/README.md", "rb"))
  local text = f:read("a")
  f:close()
  return text
end

local PUBLIC = {
  "blockstore", "car", "catch_signals", "cid", "client", "clock", "codec", "dagcbor", "dagpb", "dataset", "error",
  "gateways", "hash", "image", "ipns", "isatty", "json", "list", "listdir", "multibase", "multihash", "name", "ndarray", "null",
  "pack", "plot", "points", "policy_dir", "refs", "s3", "serve", "stop_requested", "threads", "unixfs", "varint", "version", "versions",
  "zarr",
}

describe("the ipfsrt table", function()
  it("holds the documented names and no others", function()
    local have = {}
    for name in pairs(ipfsrt) do have[#have + 1] = name end
    table.sort(have)
    assert.same(PUBLIC, have)
  end)

  it("has every name in the Lua reference", function()
    local text = readme()
    for _, name in ipairs(PUBLIC) do
      assert.truthy(text:find("ipfsrt." .. name, 1, true), "lua/README.md does not mention ipfsrt." .. name)
    end
  end)

  it("keeps the C constructors and store internals private", function()
    for _, name in ipairs { "client_new", "client_methods", "s3_put_file" } do
      assert.is_nil(rawget(ipfsrt, name), name)
      assert.truthy(require("ipfsrt.core")[name], name)
    end
    for _, name in ipairs { "store_open", "store_lua", "open_node", "create_array", "create_group", "create_like",
      "consolidate_store", "read_nodes" } do
      assert.is_nil(rawget(ipfsrt.zarr, name), name)
      assert.truthy(require("ipfsrt.core").zarr[name], name)
    end
  end)

  it("has every function of its submodules and every subcommand in the Lua reference", function()
    local text = readme()
    local missing = {}
    for name, sub in pairs(ipfsrt) do
      if type(sub) == "table" and name ~= "null" then
        for fn, v in pairs(sub) do
          if type(v) == "function" and not text:find(name .. "." .. fn, 1, true)
            and not (name == "ndarray" and text:find("nd." .. fn, 1, true)) then
            missing[#missing + 1] = "ipfsrt." .. name .. "." .. fn
          end
        end
      end
    end
    for file in io.popen("ls lua/ipfsrt/cli"):lines() do
      local sub = file:match("^(%w+)%.lua$")
      if sub and sub ~= "init" and not text:find("ipfsrt " .. sub, 1, true) then
        missing[#missing + 1] = "ipfsrt " .. sub .. " (subcommand)"
      end
    end
    table.sort(missing)
    assert.same({}, missing)
  end)
end)
