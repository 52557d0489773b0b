-- ipfsrt zarr's stores: opened from a URL as the fetching options say
-- (verified over IPFS and from CARs; a plain web server refused unless
-- --no-verify), the client reported on and closed after.
local ipfsrt = require "ipfsrt"
local fetchcli = require "ipfsrt.fetchcli"

local M = {}

local function is_ipfs(url) return url:match("^ip[fn]s://") or url:match("^/ip[fn]s/") end

local function open_store(url, opts)
  fetchcli.check_gateways(opts)
  url = require("ipfsrt.zarr").ipfs_url_of(fetchcli.gateway_url_target(url, opts, true))
  local verify = not opts["no-verify"]
  if is_ipfs(url) then
    local client = fetchcli.client(opts)
    return ipfsrt.zarr.store(url, { client = client, verify = verify }), client
  end
  local store = ipfsrt.zarr.store(url, { verify = verify })
  -- a CAR on a web server is read verified ("http-car"); a plain web folder,
  -- or references read from one, are not
  local info = store:info()
  if verify and not info.verified and (info.kind == "http" or url:match("^https?://") or url:match("^refs%+https?://")) then
    fetchcli.not_a_gateway(url)
  end
  return store
end

-- Runs fn(store) on url's store, then reports (-v) and closes its client.
function M.with_store(url, opts, fn)
  local store, client = open_store(url, opts)
  local ok, err = pcall(fn, store)
  if client then
    fetchcli.report(client, opts)
    client:close()
  end
  if not ok then error(fetchcli.explain(err, opts), 0) end
end

return M
