-- ipfsrt zarr append and replace: new versions of a dataset from NetCDF
-- files, along a dimension or into a region.
local ipfsrt = require "ipfsrt"
local argparse = require "ipfsrt.argparse"
local fetchcli = require "ipfsrt.fetchcli"
local with_store = require("ipfsrt.cli.zarr.open").with_store
local size_list = require("ipfsrt.cli.zarr.cp").size_list

local M = {}

local NETCDF = { nc = true, nc4 = true, h5 = true, hdf5 = true, he5 = true }

local function absolute(path)
  if path:sub(1, 1) == "/" then return path end
  return (os.getenv("PWD") or ".") .. "/" .. path
end

-- The new data, and what to do once it is written: a dataset where FROM is,
-- or NetCDF/HDF5 files read through references made here (to a temporary
-- file, removed after), joined along dim when several.
local function open_from(files, dim)
  local dataset = require "ipfsrt.dataset"
  local netcdf = true
  for _, f in ipairs(files) do netcdf = netcdf and NETCDF[(f:match("%.(%w+)$") or ""):lower()] ~= nil end
  if not netcdf then
    if #files > 1 then argparse.usage_error("several FROMs are NetCDF/HDF5 files, joined along DIM") end
    return dataset.open(files[1]), function() end
  end
  local targets = {}
  for i, f in ipairs(files) do targets[i] = absolute(f) end
  local json = #files == 1 and ipfsrt.refs.make(files[1], { target = targets[1] })
    or ipfsrt.refs.concat(files, dim, { targets = targets })
  local placeholder = os.tmpname() -- made, so that the name stays ours
  local path = placeholder .. ".json"
  local f = assert(io.open(path, "wb"))
  f:write(json)
  f:close()
  local function cleanup() os.remove(path); os.remove(placeholder) end
  local ok, ds = pcall(dataset.open, path)
  if not ok then cleanup(); error(ds, 0) end
  return ds, cleanup
end

-- "time=10:12,lat=0:100" -> {time = {10, 12}, lat = {0, 100}}
function M.parse_region(text)
  local region = {}
  for dim, a, b in text:gmatch("([^,=]+)=(%d+):(%d+)") do region[dim] = { tonumber(a), tonumber(b) } end
  if next(region) == nil then argparse.usage_error("--region DIM=START:STOP[,DIM=START:STOP...]") end
  return region
end

local function change(url, files, opts, how)
  if #files == 0 then argparse.usage_error("zarr %s needs OLD and FROM", how) end
  if opts.output then argparse.check_output(opts.output, opts.force) end
  local o = { output = opts.output, force = opts.force, pack = require("ipfsrt.cli.pack").settings(opts),
    chunks = size_list(opts.chunks, "chunks"), publish = opts.publish, keystore = opts.keystore }
  if opts.keystore and not opts.publish then argparse.usage_error("--keystore goes with --publish KEY") end
  if how == "append" then
    if not opts.dim then argparse.usage_error("zarr append needs --dim DIM") end
    o.dim = opts.dim
  else
    if not opts.region then argparse.usage_error("zarr replace needs --region DIM=START:STOP") end
    o.region = M.parse_region(opts.region)
  end
  with_store(url, opts, function(store)
    local old = require("ipfsrt.dataset").open(store)
    local from, cleanup = open_from(files, o.dim)
    local ok, root, published, record = pcall(old[how], old, from, o)
    cleanup()
    if not ok then error(root, 0) end
    if published and not opts.quiet then
      io.stderr:write(string.format("published ipns://%s (sequence %d) in %s\n", published.name, published.sequence,
        record))
    end
    if root then print(tostring(root)) end
  end)
end

function M.append(url, rest, opts) change(url, rest, opts, "append") end
function M.replace(url, rest, opts) change(url, rest, opts, "replace") end

return M
