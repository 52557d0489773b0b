-- ipfsrt serve over HTTPS (libmicrohttpd's GnuTLS) with a self-signed pair made
-- here: a client that trusts the certificate reads verified, one that does not
-- fails naming TLS and is not retried elsewhere.
local ipfsrt = require "ipfsrt"
local exe = require "exe"

describe("serve --tls-cert/--tls-key", function()
  local dir, cert, key = exe.self_signed()
  local root = "bafybeihjcinxwvt7yho4ukgcftiwrpwqd5mvc4ibnycf4crsgw2fh5ykju"

  teardown(function() os.execute("rm -rf " .. dir) end)

  it("serves HTTPS that a client trusting the certificate reads, verified", function()
    local gw <close> = ipfsrt.serve { cars = { "tests/fixtures/ipfs-car-small.car" }, tls_cert = cert, tls_key = key }
    assert.truthy(gw:url():match("^https://127%.0%.0%.1:%d+$"))
    local c = ipfsrt.client { gateways = { gw:url() }, cacert = cert }
    assert.equal("hello world\n", c:get("ipfs://" .. root .. "/hello.txt"))
    c:close()
    local stranger = ipfsrt.client { gateways = { gw:url() }, retries = 1 }
    local ok, err = pcall(stranger.get, stranger, "ipfs://" .. root .. "/hello.txt")
    assert.is_false(ok)
    assert.truthy(tostring(err):find("TLS", 1, true), tostring(err))
    stranger:close()
  end)

  it("refuses a certificate without its key", function()
    local ok, err = pcall(ipfsrt.serve, { cars = { "tests/fixtures/ipfs-car-small.car" }, tls_cert = cert })
    assert.is_false(ok)
    assert.truthy(tostring(err):find("both", 1, true))
  end)
end)
