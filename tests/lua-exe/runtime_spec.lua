-- Runs under the ipfsrt executable itself (build/ipfsrt /usr/bin/busted tests/lua-exe).
describe("the ipfsrt executable's Lua state", function()
  it("preloads the module and sets the global", function()
    assert.is_function(package.preload.ipfsrt)
    assert.equal(require("ipfsrt"), ipfsrt)
    assert.equal("bafkqaaa", tostring(ipfsrt.cid.parse("bafkqaaa")))
  end)
  it("finds the Lua library modules in the source tree", function()
    assert.is_table(require("ipfsrt.cli"))
    assert.is_function(require("ipfsrt.cli.car").run)
    assert.truthy(package.searchpath("ipfsrt.cli.cid", package.path))
  end)
end)

describe("the ipfsrt executable's own files", function()
  local exe = require "exe"
  local command = exe.EXE:sub(1, 1) == "/" and exe.EXE or os.getenv("PWD") .. "/" .. exe.EXE

  it("are found from the executable's file, whatever argv[0] says", function()
    -- a folder laid out as an install, with subcommands of its own, named as argv[0]
    local dir = os.tmpname()
    os.remove(dir)
    os.execute("mkdir -p " .. dir .. "/bin " .. dir .. "/lua/ipfsrt/cli")
    exe.put(dir .. "/lua/ipfsrt/cli/init.lua", 'print("subcommands from argv[0]") os.exit(7)\n')
    for _, argv0 in ipairs { dir .. "/bin/ipfsrt", "/nonexistent/x", "ipfsrt" } do
      local out = exe.sh(string.format("bash -c 'exec -a %s %s cid bafkqaaa'", argv0, command))
      assert.truthy(out:find('"codec":"raw"', 1, true), argv0 .. ": " .. out)
    end
    os.execute("rm -rf " .. dir)
  end)
end)
