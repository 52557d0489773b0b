-- ipfsrt serve FILE.car... [--listen 127.0.0.1:PORT]: a local trustless gateway.
local ipfsrt = require "ipfsrt"
local argparse = require "ipfsrt.argparse"

local M = {
  summary = "serve CAR files as a trustless gateway (raw blocks and CAR responses)",
  usage = [[usage: ipfsrt serve FILE.car... [--listen HOST:PORT] [--threads N]

Verifies every CAR, prints the base URL as its first line, then serves until SIGINT
or SIGTERM. PORT 0 (the default, on 127.0.0.1) picks a free port. Answers
GET/HEAD /ipfs/{cid}?format=raw (or Accept: application/vnd.ipld.raw) with the block,
and /ipfs/{cid}[/path]?format=car (or Accept: application/vnd.ipld.car) with a CARv1
in DFS order holding the path's blocks and the dag-scope (block, entity, all) or
entity-bytes=FROM:TO range.]],
}

function M.run(args)
  local pos, opts = argparse.parse(args, { listen = "string", threads = "string" })
  if #pos == 0 then argparse.usage_error("expected at least one CAR file") end
  local threads = opts.threads and math.tointeger(tonumber(opts.threads))
  if opts.threads and (not threads or threads < 1) then argparse.usage_error("--threads needs a number") end
  local gw = ipfsrt.serve { cars = pos, listen = opts.listen or "127.0.0.1:0", threads = threads }
  print(gw:url())
  io.stdout:flush()
  local sig = gw:wait()
  local st = gw:stats()
  gw:stop()
  io.stderr:write(string.format("ipfsrt serve: %s, stopping after %d requests (%d bytes)\n", sig,
    st.requests, st.bytes))
  return 0
end

return M
