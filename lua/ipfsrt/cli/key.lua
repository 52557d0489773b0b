-- ipfsrt key gen|list: the keys that sign IPNS records, in a keystore.
local ipfsrt = require "ipfsrt"
local argparse = require "ipfsrt.argparse"

local M = {
  summary = "keys that sign IPNS names: make one (gen), list them (list)",
  usage = [[usage: ipfsrt key gen NAME [--type ed25519|rsa] [--keystore DIR]
                                      a new key called NAME; prints the IPNS name it signs for
       ipfsrt key list [--keystore DIR] [-q]
                                      each key: its IPNS name, and its name in the keystore
                                      (-q, --quiet: the IPNS names alone; gen prints the name alone anyway)

Keys are files (libp2p's PrivateKey protobuf, as Kubo keeps them; mode 0600)
in the keystore: --keystore DIR, else $IPFSRT_KEYSTORE, else
$XDG_DATA_HOME/ipfsrt/keys (~/.local/share/ipfsrt/keys). Ed25519 is the default
type; RSA (2048 bits) is for readers that know only legacy names.]],
}

function M.run(args)
  local pos, opts = argparse.parse(args, { type = "string", keystore = "string", quiet = "boolean" }, { q = "quiet" })
  local command = pos[1]
  if command == "gen" then
    if #pos ~= 2 then argparse.usage_error("key gen needs one NAME") end
    print(ipfsrt.name.keygen(pos[2], opts))
  elseif command == "list" then
    if #pos ~= 1 then argparse.usage_error("key list takes no arguments") end
    for _, k in ipairs(ipfsrt.name.list(opts)) do print(opts.quiet and k.name or k.name .. "  " .. k.key) end
  else
    argparse.usage_error("expected gen or list")
  end
  return 0
end

return M
