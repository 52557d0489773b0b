-- ipfsrt car roots|ls|verify|cat: inspect and verify CAR files.
local ipfsrt = require "ipfsrt"
local argparse = require "ipfsrt.argparse"

local M = {
  summary = "inspect and verify CAR files (roots, ls, verify, cat)",
  usage = [[usage: ipfsrt car roots FILE        root CIDs, one per line
       ipfsrt car ls FILE           one line per block: CID, codec, size (every block verified)
       ipfsrt car verify FILE       check every block's hash; exit 1 naming the first bad one
       ipfsrt car cat FILE CID      one verified block's bytes to stdout

Options: --max-block BYTES (largest block accepted; default 2 MiB)]],
}

local commands = {}

function commands.roots(file, _, opts)
  local car <close> = ipfsrt.car.open(file, opts)
  for _, root in ipairs(car:roots()) do print(root) end
end

function commands.ls(file, _, opts)
  local car <close> = ipfsrt.car.open(file, opts)
  local out = io.stdout
  for cid, data in car:blocks() do
    out:write(tostring(cid), "\t", tostring(cid.codec), "\t", #data, "\n")
  end
end

function commands.verify(file, _, opts)
  local t0 = ipfsrt.clock()
  local summary = ipfsrt.car.verify(file, opts)
  local secs = ipfsrt.clock() - t0
  print(string.format("ok: %d blocks, %d bytes verified in %.3f s", summary.blocks, summary.bytes, secs))
end

function commands.cat(file, rest, opts)
  if #rest ~= 1 then argparse.usage_error("car cat needs FILE and CID") end
  local cid = ipfsrt.cid.parse(rest[1])
  local car <close> = ipfsrt.car.open(file, opts)
  local data = car:get(cid)
  if not data then
    error(ipfsrt.error.new("not_found", string.format("block %s is not in %s", tostring(cid), file),
      { cid = tostring(cid) }), 0)
  end
  io.stdout:write(data)
end

function M.run(args)
  local pos, opts = argparse.parse(args, { ["max-block"] = "string" })
  local cmd = table.remove(pos, 1)
  if not cmd or not commands[cmd] then argparse.usage_error("expected roots, ls, verify or cat") end
  local file = table.remove(pos, 1)
  if not file then argparse.usage_error("car %s needs a CAR file", cmd) end
  if cmd ~= "cat" and #pos > 0 then argparse.usage_error("unexpected argument %s", pos[1]) end
  local car_opts = {}
  if opts["max-block"] then
    car_opts.max_block_size = math.tointeger(tonumber(opts["max-block"]))
    if not car_opts.max_block_size or car_opts.max_block_size < 1 then
      argparse.usage_error("--max-block needs a positive number of bytes")
    end
  end
  commands[cmd](file, pos, car_opts)
  return 0
end

return M
