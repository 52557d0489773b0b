-- ipfsrt get ipfs://CID[/path] [-o OUT | --car OUT.car]: verified download through gateways.
local ipfsrt = require "ipfsrt"
local argparse = require "ipfsrt.argparse"
local fetchcli = require "ipfsrt.fetchcli"

local M = {
  summary = "download ipfs://CID[/path] through gateways, every block verified",
  usage = [[usage: ipfsrt get ipfs://CID[/path] [-o, --output OUT | --car OUT.car] [-q] [options]

Without -o a file's bytes go to stdout (each byte only after its block was verified);
with -o OUT the file, directory tree or symlink is written to OUT, which must not
exist (checked before anything is fetched): everything lands in a temporary sibling
first and is renamed into place once complete, so a failure, Ctrl-C or SIGTERM
leaves nothing behind. --car OUT.car saves the DAG itself, verified, as a CAR rooted
at the path's CID (like `ipfs dag export`: an archive any IPFS tool imports).
-q, --quiet: no progress bar.
]] .. fetchcli.options_help,
}

M.options = { output = "string", car = "string", quiet = "boolean" }
M.aliases = { o = "output", q = "quiet" }

-- Runs fn(client) with the progress bar up, and with SIGINT, SIGTERM and SIGHUP
-- stopping the fetch cleanly; a stop ends the process with 128 + the signal.
function M.fetch(opts, fn)
  ipfsrt.catch_signals()
  fetchcli.with_client(opts, function(client)
    local done = fetchcli.progress(client, opts)
    local ok, err = pcall(fn, client)
    done(ok)
    if not ok then error(err, 0) end
  end)
end

local function stopped(err)
  local sig = ipfsrt.stop_requested()
  if not sig then error(err, 0) end
  io.stderr:write("ipfsrt: stopped by signal ", sig, "; nothing left behind\n")
  os.exit(128 + sig)
end

function M.run(args)
  local url, opts = fetchcli.parse(args, "get", M.options, M.aliases)
  if opts.output and opts.car then argparse.usage_error("-o and --car go one at a time") end
  local ok, err = pcall(M.fetch, opts, function(client)
    if opts.output then return client:save(url, opts.output) end
    if opts.car then return client:save_car(url, opts.car) end
    -- Straight to the read (one round trip); only a path that is no file costs a
    -- stat, answered from the blocks that read left in the cache.
    local read, read_err = pcall(client.get, client, url, io.stdout)
    if not read and ipfsrt.error.is(read_err, "not_file") then
      argparse.usage_error("%s is a %s; give -o DIR to write it out", url, client:stat(url).type)
    end
    if not read then error(read_err, 0) end
  end)
  if not ok then stopped(err) end
  io.stdout:flush()
  return 0
end

return M
