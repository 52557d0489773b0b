-- DNSLink names (ipns://example.org) through the system resolver: the whole
-- run inside a network and mount namespace of its own (unshare), where
-- 127.0.0.1 is a DNS server of the test's (dns_server.py) that
-- /etc/resolv.conf names, and a gateway: nothing leaves the machine, and
-- the machine's own resolver is untouched.
local exe = require "exe"

local FIX = "tests/fixtures/conformance/"
local ROOT1 = "bafybeib3ffl2teiqdncv3mkz4r23b5ctrwkzrrhctdbne6iboayxuxk5ui" -- gateway-cache.car

describe("DNSLink names", function()
  it("resolve through the system resolver to what the TXT record names, read verified", function()
    if not os.execute("unshare -mn true 2>/dev/null") then
      pending("no namespaces here (unshare -mn needs root)")
      return
    end
    local dir = os.tmpname()
    os.remove(dir)
    os.execute("mkdir -p " .. dir)
    local f = assert(io.open(dir .. "/resolv.conf", "w"))
    f:write("nameserver 127.0.0.1\noptions timeout:1 attempts:1\n")
    f:close()
    local q, exe_path = exe.sh_quote, os.getenv("PWD") .. "/" .. exe.EXE
    local script = table.concat({
      "set -e",
      "ip link set lo up",
      "mount --bind " .. q(dir .. "/resolv.conf") .. " /etc/resolv.conf",
      "python3 tests/lua-exe/dns_server.py " .. q("_dnslink.example.org=dnslink=/ipfs/" .. ROOT1 .. "/root2") ..
        " " .. q("_dnslink.chain.example.org=dnslink=/ipns/example.org/root3") .. " > /dev/null 2>&1 & DNS=$!",
      exe_path .. " serve " .. FIX .. "gateway-cache.car --listen 127.0.0.1:8080 -q > /dev/null 2>&1 & GW=$!",
      "sleep 0.5",
      "G=http://127.0.0.1:8080",
      exe_path .. " name resolve ipns://example.org --gateway $G -q",
      exe_path .. " cat ipns://chain.example.org/root4/index.html --gateway $G -q",
      exe_path .. " name resolve ipns://example.org --gateway $G 2>&1 >/dev/null",
      exe_path .. " name resolve ipns://absent.example.org --gateway $G 2>&1 || echo failed",
      "kill $DNS $GW",
    }, "\n")
    local p = assert(io.popen("timeout 60 unshare -mn sh -c " .. q(script) .. " 2>&1"))
    local out = p:read("a")
    p:close()
    os.execute("rm -rf " .. dir)
    local lines = {}
    for l in out:gmatch("[^\n]+") do lines[#lines + 1] = l end
    assert.equal("/ipfs/" .. ROOT1 .. "/root2", lines[1], out)
    assert.equal("hello", lines[2], out)
    assert.equal("ipfsrt name: example.org is a DNSLink name: its DNS record is not signed " ..
      "(what it names is read verified)", lines[3], out)
    assert.truthy(out:find("no TXT record at _dnslink.absent.example.org", 1, true), out)
    assert.truthy(out:find("failed", 1, true), out)
  end)
end)
