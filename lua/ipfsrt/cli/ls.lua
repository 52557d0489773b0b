-- ipfsrt ls ipfs://CID[/path]: a directory listing through gateways, verified.
local ipfsrt = require "ipfsrt"
local fetchcli = require "ipfsrt.fetchcli"

local M = {
  summary = "list the directory at ipfs://CID[/path] through gateways, verified",
  usage = [[usage: ipfsrt ls ipfs://CID[/path] [--json] [--no-types] [options]

One line per entry: type, size, CID, name (entries in link order; HAMT-sharded
directories in shard order). --no-types skips fetching each entry's first block, and
prints the links' cumulative sizes with type '-' instead.
]] .. fetchcli.options_help,
}

function M.run(args)
  local url, opts = fetchcli.parse(args, "ls", { json = "boolean", ["no-types"] = "boolean" })
  fetchcli.with_client(opts, function(client)
    local entries = client:ls(url, { types = not opts["no-types"] })
    if opts.json then
      for _, e in ipairs(entries) do e.cid = tostring(e.cid) end
      print(ipfsrt.json.encode(entries))
      return
    end
    local out = io.stdout
    local bad = 0
    for _, e in ipairs(entries) do
      if e.error then bad = bad + 1 end
      out:write(string.format("%-10s %12s %s %s\n", e.error and "?" or e.type or "-",
        e.error and "(" .. e.error .. ")" or e.size or e.tsize, tostring(e.cid), e.name))
    end
    if bad > 0 then
      error(ipfsrt.error.new("fetch_failed", string.format("%d of %d entries could not be read (marked ?)",
        bad, #entries)), 0)
    end
  end)
  return 0
end

return M
