-- ipfsrt get ipfs://CID[/path] [-o OUT]: verified download through gateways.
local ipfsrt = require "ipfsrt"
local argparse = require "ipfsrt.argparse"
local fetchcli = require "ipfsrt.fetchcli"

local M = {
  summary = "download ipfs://CID[/path] through gateways, every block verified",
  usage = [[usage: ipfsrt get ipfs://CID[/path] [-o OUT] [options]

Without -o a file's bytes go to stdout (each byte only after its block was verified);
with -o OUT the file, directory tree or symlink is written to OUT, which must not
exist: everything lands in a temporary sibling first and is renamed into place once
complete, so a failure leaves nothing behind.
]] .. fetchcli.options_help,
}

function M.run(args)
  local url, opts = fetchcli.parse(args, "get")
  fetchcli.with_client(opts, function(client)
    local done = fetchcli.progress(client)
    local ok, err = pcall(function()
      if opts.output then
        client:save(url, opts.output)
        return
      end
      -- Straight to the read (one round trip); only a path that is no file costs a
      -- stat, answered from the blocks that read left in the cache.
      local read, read_err = pcall(client.get, client, url, io.stdout)
      if not read and type(read_err) == "table" and read_err.code == "not_file" then
        argparse.usage_error("%s is a %s; give -o DIR to write it out", url, client:stat(url).type)
      end
      if not read then error(read_err, 0) end
    end)
    done()
    if not ok then error(err, 0) end
  end)
  io.stdout:flush()
  return 0
end

return M
