-- ipfsrt stat ipfs://CID[/path]: what a path names, resolved through gateways.
local ipfsrt = require "ipfsrt"
local fetchcli = require "ipfsrt.fetchcli"

local M = {
  summary = "type, size and CID of ipfs://CID[/path], resolved through gateways",
  usage = [[usage: ipfsrt stat ipfs://CID[/path] [--json] [options]

Resolves the path with one CAR request (dag-scope=block), walking it from the root
CID: type, size (file bytes), CID, and mode/mtime when the DAG records them.
]] .. fetchcli.options_help,
}

function M.run(args)
  local url, opts = fetchcli.parse(args, "stat", { json = "boolean" })
  fetchcli.with_client(opts, function(client)
    local info = client:stat(url)
    info.cid = tostring(info.cid)
    if opts.json then
      print(ipfsrt.json.encode(info))
    else
      print(string.format("type: %s\nsize: %d\ncid: %s", info.type, info.size, info.cid))
      if info.mode then print(string.format("mode: %o", info.mode)) end
      if info.mtime then print(string.format("mtime: %.9g", info.mtime)) end
    end
  end)
  return 0
end

return M
