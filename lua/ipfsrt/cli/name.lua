-- ipfsrt name publish|inspect: IPNS records made and read.
local ipfsrt = require "ipfsrt"
local argparse = require "ipfsrt.argparse"
local fetchcli = require "ipfsrt.fetchcli"

local M = {
  summary = "IPNS names: sign a record for a version (publish), read one (inspect), follow one (resolve)",
  usage = [[usage: ipfsrt name publish /ipfs/CID[/path] --key NAME -o RECORD [--keystore DIR]
                         [--sequence N] [--lifetime D] [--ttl D] [--v1] [--force]
                                      a record pointing the key's name at the path, signed;
                                      prints the name
       ipfsrt name inspect RECORD [--name NAME] [--json] [-q]
                                      what a record says, its signature verified for NAME
                                      (default: the name its file name starts with;
                                      -q, --quiet: its value alone)
       ipfsrt name resolve ipns://NAME[/path] [options]
                                      the /ipfs/ path the name points at now: its record
                                      asked of every gateway, each answer verified, the
                                      highest valid sequence taken; a domain (ipns://example.org)
                                      is a DNSLink name, its _dnslink TXT record read through
                                      the system resolver: not signed, and said so

publish: --sequence defaults to one past the last record published with the key
(0 for the first); --lifetime is how long the record stays valid (default 48h),
--ttl how long readers may cache it (default 5m): D is seconds, or a number with
s, m, h or d. --v1 adds the legacy V1 fields for old readers. RECORD must not
exist (--force replaces it). The path may also be ipfs://CID[/path] or a CID.
-o, --output RECORD: where the record goes. The key is read from the keystore
(as ipfsrt key keeps it). ipns://NAME/path works wherever ipfs:// does (get, cat,
ls, stat, zarr, ipfsrt.dataset.open): resolved so, then read verified.
]] .. fetchcli.options_help,
}

local function duration(opts, name)
  if opts[name] == nil then return nil end
  local d = ipfsrt.name.duration(opts[name])
  if not d or d <= 0 then argparse.usage_error("--%s needs a duration: 90, 90s, 30m, 48h, 7d", name) end
  return d
end

local function publish(pos, opts)
  if #pos ~= 2 then argparse.usage_error("name publish needs one path") end
  if not opts.key then argparse.usage_error("name publish needs --key NAME") end
  if not opts.output then argparse.usage_error("name publish needs -o RECORD") end
  argparse.check_output(opts.output, opts.force)
  local p = ipfsrt.name.publish(pos[2], { key = opts.key, keystore = opts.keystore, output = opts.output,
    sequence = argparse.whole(opts, "sequence"), lifetime = duration(opts, "lifetime"), ttl = duration(opts, "ttl"),
    v1 = opts.v1, replace = opts.force })
  print(p.name)
end

local function inspect(pos, opts)
  if #pos ~= 2 then argparse.usage_error("name inspect needs one RECORD file") end
  local f = io.open(pos[2], "rb") or error(ipfsrt.error.new("io", "cannot read " .. pos[2]), 0)
  local record = f:read("a")
  f:close()
  local name = opts.name or pos[2]:match("([%w]+)[^/]*$")
  local info = ipfsrt.name.inspect(record, name)
  if opts.json or opts.quiet then
    print(opts.json and ipfsrt.json.encode(info) or info.value)
    return
  end
  print("name:     " .. info.name)
  print("value:    " .. info.value)
  print("sequence: " .. info.sequence)
  print("validity: " .. info.validity .. (info.expired and "  (EXPIRED)" or ""))
  print(string.format("ttl:      %g s", info.ttl))
  print("key:      " .. info.key_type .. (info.v1 and ", with V1 fields" or ""))
  print("signature: verified")
end

local function resolve(args)
  local url, opts = fetchcli.parse(args, "name resolve")
  if not url:match("^ipns://") and not url:match("^/ipns/") then url = "ipns://" .. url end
  local domain = url:match("^ipns://([^/]*%.[^/]*)") or url:match("^/ipns/([^/]*%.[^/]*)")
  if domain and not opts.quiet then
    io.stderr:write(string.format("ipfsrt name: %s is a DNSLink name: its DNS record is not signed (what it names " ..
      "is read verified)\n", domain))
  end
  fetchcli.with_client(opts, function(client) print(client:resolve_name(url)) end)
end

function M.run(args)
  if args[1] == "resolve" then
    resolve({ table.unpack(args, 2) })
    return 0
  end
  local pos, opts = argparse.parse(args, { key = "string", keystore = "string", output = "string",
    sequence = "string", lifetime = "string", ttl = "string", v1 = "boolean", force = "boolean", name = "string",
    json = "boolean", quiet = "boolean" }, { o = "output", q = "quiet" })
  if pos[1] == "publish" then publish(pos, opts)
  elseif pos[1] == "inspect" then inspect(pos, opts)
  else argparse.usage_error("expected publish, inspect or resolve") end
  return 0
end

return M
