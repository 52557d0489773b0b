-- ipfsrt car roots|ls|verify|cat: inspect and verify CAR files.
local ipfsrt = require "ipfsrt"
local argparse = require "ipfsrt.argparse"

local M = {
  summary = "inspect, verify and read CAR files (roots, ls, verify, cat, ls-path, get, stat)",
  usage = [[usage: ipfsrt car roots FILE          root CIDs, one per line
       ipfsrt car ls FILE             one line per block: CID, codec, size (every block verified)
       ipfsrt car verify FILE [-q]    check every block's hash; exit 1 naming the first bad one
                                      (-q, --quiet: nothing printed when all is right)
       ipfsrt car cat FILE CID        one verified block's bytes to stdout
       ipfsrt car ls-path FILE CID[/path]     directory listing: type, size, CID, name
       ipfsrt car get FILE CID[/path] [-o OUT] file bytes to stdout, or to OUT; a directory
                                      is written out as a tree (needs -o)
       ipfsrt car stat FILE CID[/path]        type, size, CID and blocks the DAG spans
       ipfsrt car diff OLD NEW -o DELTA.car [--force]   the blocks of NEW that OLD lacks,
                                      NEW's roots kept: what a holder of OLD needs for NEW
                                      (`ipfsrt serve OLD DELTA.car` serves NEW whole); NEW
                                      read as a stream, every block verified; says what it
                                      kept and left out on stderr (-q: not); DELTA.car must
                                      not exist (--force replaces it)

Options: --max-block BYTES (largest block accepted; default 2 MiB), --follow-symlinks,
         --json (ls-path, stat)]],
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

function commands.verify(file, _, opts, flags)
  local t0 = ipfsrt.clock()
  local summary = ipfsrt.car.verify(file, opts)
  local secs = ipfsrt.clock() - t0
  if flags.quiet then return end
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

local function unixfs_path(rest)
  if #rest ~= 1 then argparse.usage_error("expected FILE and CID[/path]") end
  return rest[1]
end

function commands.stat(file, rest, opts, flags)
  local car <close> = ipfsrt.car.open(file, opts)
  local info = ipfsrt.unixfs.stat(car, unixfs_path(rest), flags)
  if flags.json then
    print(ipfsrt.json.encode(info))
  else
    print(string.format("type: %s\nsize: %d\ncid: %s\nblocks: %d", info.type, info.size,
      tostring(info.cid), info.blocks))
  end
end

commands["ls-path"] = function(file, rest, opts, flags)
  local car <close> = ipfsrt.car.open(file, opts)
  local entries = ipfsrt.unixfs.ls(car, unixfs_path(rest), flags)
  if flags.json then
    print(ipfsrt.json.encode(entries))
    return
  end
  local out = io.stdout
  local bad = 0
  for _, e in ipairs(entries) do
    if e.error then bad = bad + 1 end
    out:write(string.format("%-10s %12s %s %s\n", e.type or "?", e.size or ("(" .. (e.error or "?") .. ")"),
      tostring(e.cid), e.name))
  end
  if bad > 0 then
    error(ipfsrt.error.new("bad_unixfs", string.format("%d of %d entries could not be read (marked ?)",
      bad, #entries)), 0)
  end
end

function commands.get(file, rest, opts, flags)
  local path = unixfs_path(rest)
  local car <close> = ipfsrt.car.open(file, opts)
  if flags.output then
    ipfsrt.unixfs.export(car, path, flags.output, flags)
    return
  end
  local info = ipfsrt.unixfs.resolve(car, path, flags)
  if info.type ~= "file" then
    argparse.usage_error("%s is a %s; give -o DIR to write it out", path, info.type)
  end
  -- In slices, so a large file never sits in memory whole; every byte is verified
  -- before it is written.
  local step = 8 * 1024 * 1024
  for offset = 0, math.max(info.size - 1, 0), step do
    io.stdout:write(ipfsrt.unixfs.read(car, tostring(info.cid), offset, step))
  end
end

function commands.diff(old, rest, _, flags)
  if #rest ~= 1 then argparse.usage_error("car diff needs OLD and NEW") end
  if not flags.output then argparse.usage_error("car diff needs -o DELTA.car") end
  argparse.check_output(flags.output, flags.force)
  local s = ipfsrt.car.diff(old, rest[1], flags.output)
  if not flags.quiet then
    io.stderr:write(string.format("%s: %d blocks (%d bytes) of %s; %d blocks (%d bytes) %s has, left out\n",
      flags.output, s.new_blocks, s.new_bytes, rest[1], s.shared_blocks, s.shared_bytes, old))
  end
end

function M.run(args)
  local pos, opts = argparse.parse(args, { ["max-block"] = "string", output = "string",
    ["follow-symlinks"] = "boolean", json = "boolean", quiet = "boolean", force = "boolean" },
    { o = "output", q = "quiet", f = "force" })
  local cmd = table.remove(pos, 1)
  if not cmd or not commands[cmd] then
    argparse.usage_error("expected roots, ls, verify, cat, ls-path, get, stat or diff")
  end
  local file = table.remove(pos, 1)
  if not file then argparse.usage_error("car %s needs a CAR file", cmd) end
  local takes_path = { cat = true, ["ls-path"] = true, get = true, stat = true, diff = true }
  if not takes_path[cmd] and #pos > 0 then argparse.usage_error("unexpected argument %s", pos[1]) end
  -- each option only where it means something
  local allowed = { json = { ["ls-path"] = true, stat = true }, output = { get = true, diff = true }, quiet = { verify = true, diff = true },
    force = { diff = true },
    ["follow-symlinks"] = { ["ls-path"] = true, get = true, stat = true, cat = false } }
  for name, where in pairs(allowed) do
    if opts[name] and not where[cmd] then argparse.usage_error("car %s takes no --%s", cmd, name) end
  end
  local car_opts = {}
  if opts["max-block"] then
    car_opts.max_block_size = math.tointeger(tonumber(opts["max-block"]))
    if not car_opts.max_block_size or car_opts.max_block_size < 1 then
      argparse.usage_error("--max-block needs a positive number of bytes")
    end
  end
  local flags = { output = opts.output, json = opts.json, follow_symlinks = opts["follow-symlinks"],
    quiet = opts.quiet, force = opts.force }
  commands[cmd](file, pos, car_opts, flags)
  return 0
end

return M
