-- ipfsrt version (also --version, -V): the runtime's and its libraries' versions.
local ipfsrt = require "ipfsrt"

local M = {
  summary = "versions of ipfsrt and the libraries it runs on",
  usage = [[usage: ipfsrt version [-q]

The ipfsrt version, then Lua, libcurl, cJSON, libmicrohttpd (when the server
module is built), and the SHA-2 backend in use. -q, --quiet: the version number
alone.]],
}

function M.run(args)
  local argparse = require "ipfsrt.argparse"
  local pos, opts = argparse.parse(args, { quiet = "boolean" }, { q = "quiet" })
  if #pos > 0 then argparse.usage_error("version takes no arguments") end
  local v = ipfsrt.versions()
  if opts.quiet then
    print(v.ipfsrt)
    return 0
  end
  print("ipfsrt " .. v.ipfsrt)
  print(v.lua)
  print("libcurl " .. v.curl)
  print("cJSON " .. v.cjson)
  if v.microhttpd then print("libmicrohttpd " .. v.microhttpd) end
  print("SHA-2 backend: " .. v.hash .. " (" .. v.crypto .. ")")
  return 0
end

return M
