-- ipfsrt cat ipfs://CID/path: a file's bytes to stdout, verified (as `ipfs cat`).
local ipfsrt = require "ipfsrt"
local argparse = require "ipfsrt.argparse"
local fetchcli = require "ipfsrt.fetchcli"
local get = require "ipfsrt.cli.get"

local M = {
  summary = "print the file at ipfs://CID[/path], every block verified (like ipfs cat)",
  usage = [[usage: ipfsrt cat ipfs://CID[/path] [--offset N] [--length N] [-q] [options]

The file's bytes go to stdout, each only after its block was verified; --offset
and --length read a range. A directory is an error (see 'ipfsrt ls', 'ipfsrt get -o').
]] .. fetchcli.options_help,
}

function M.run(args)
  local url, opts = fetchcli.parse(args, "cat", { offset = "string", length = "string", quiet = "boolean" },
    { q = "quiet" })
  local offset, length = argparse.whole(opts, "offset") or 0, argparse.whole(opts, "length")
  local ok, err = pcall(get.fetch, opts, function(client)
    local read, read_err = pcall(client.get, client, url, offset, length or -1, io.stdout)
    if not read and ipfsrt.error.is(read_err, "not_file") then
      error(ipfsrt.error.new("not_file", string.format("%s is a %s, not a file (see 'ipfsrt ls')",
        url, client:stat(url).type)), 0)
    end
    if not read then error(read_err, 0) end
  end)
  if not ok then
    local sig = ipfsrt.stop_requested()
    if sig then os.exit(128 + sig) end
    error(err, 0)
  end
  io.stdout:flush()
  return 0
end

return M
