-- IPNS records both ways with an independent implementation (npm's `ipns`
-- and `@libp2p/crypto`, ipns-interop.mjs): records js makes (Ed25519 and
-- RSA, V1+V2 and V2-only) verify in ipfsrt and say what js wrote; records
-- ipfsrt publishes (the same kinds) validate in js, and ipfsrt's keystore
-- files read in js as the keys of the same names.
-- Usage: ipfsrt ipns-interop.lua WORKDIR NODE
local ipfsrt = require "ipfsrt"

local work, node = arg[1], arg[2]
assert(work and node, "usage: ipns-interop.lua WORKDIR NODE")
package.path = arg[0]:gsub("[^/]*$", "") .. "../lua-exe/?.lua;" .. package.path
local exe_helpers = require "exe"
local sh, q = exe_helpers.sh, exe_helpers.sh_quote
local script = arg[0]:gsub("[^/]*$", "") .. "ipns-interop.mjs"
local passed, failed = 0, 0

local function check(ok, what)
  if ok then passed = passed + 1 else failed = failed + 1 end
  print((ok and "ok   " or "FAIL ") .. what)
end

local function read(path)
  local f = assert(io.open(path, "rb"))
  local s = f:read("a")
  f:close()
  return s
end

sh("rm -rf " .. q(work) .. " && mkdir -p " .. q(work .. "/js") .. " " .. q(work .. "/rs"))
-- js -> ipfsrt
sh(string.format("%s %s make %s", q(node), q(script), q(work .. "/js")))
local expected = ipfsrt.json.decode(read(work .. "/js/expected.json"))
for file, want in pairs(expected) do
  local ok, got = pcall(ipfsrt.ipns.verify, want.name, read(work .. "/js/" .. file))
  check(ok and got.value == want.value and got.sequence == want.sequence,
    "ipfsrt verifies js's " .. file .. (ok and "" or ": " .. tostring(got)))
end

-- ipfsrt -> js
local opts = { keystore = work .. "/keystore" }
local made = {}
for _, kind in ipairs { { "ed", "ed25519", false }, { "edv1", "ed25519", true }, { "rsa", "rsa", true } } do
  local name = ipfsrt.name.keygen(kind[1], { keystore = opts.keystore, type = kind[2] })
  local p = ipfsrt.name.publish("/ipfs/bafkqaddwgevxmmraojswg33smq/rs", { key = kind[1], keystore = opts.keystore,
    v1 = kind[3], sequence = 5, output = string.format("%s/rs/%s_rs-%s.ipns-record", work, name, kind[1]) })
  made[name .. "_rs-" .. kind[1] .. ".ipns-record"] = p
  sh(string.format("cp %s %s", q(opts.keystore .. "/" .. kind[1] .. ".key"), q(work .. "/rs/" .. kind[1] .. ".key")))
  made[kind[1] .. ".key"] = { name = name, type = kind[2] }
end
local out = sh(string.format("%s %s check %s", q(node), q(script), q(work .. "/rs")))
local results = ipfsrt.json.decode(out:match("(%b{})%s*$"))
for file, want in pairs(made) do
  local r = results[file] or {}
  if file:match("%.key$") then
    check(r.name == want.name and r.type:lower() == want.type, "js reads ipfsrt's key " .. file .. " as " .. want.name)
  else
    check(r.valid and r.value == want.value and r.sequence == 5,
      "js validates ipfsrt's " .. file .. (r.valid and "" or ": " .. tostring(r.error)))
  end
end
print(string.format("ipns interop: %d passed, %d failed", passed, failed))
os.exit(failed == 0 and passed == 9 and 0 or 1)
