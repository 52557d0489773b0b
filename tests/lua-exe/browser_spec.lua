-- A real browser reading through ipfsrt serve from another origin: Debian's
-- Chromium, headless, loads a page (tests/lua-exe/browser/index.html, served
-- by a second gateway from a CAR, so another origin) whose JavaScript fetches
-- files, raw blocks and CARs, ranges (a suffix range needs a preflight), a
-- name that is not there (seen as a 404, not a network error), and a request
-- with a header of its own (a preflight), and reads the exposed headers.
local ipfsrt = require "ipfsrt"
local exe = require "exe"

local FIX = "tests/fixtures/conformance/"
local chromium = os.getenv("CHROMIUM") or "/usr/bin/chromium"

describe("a browser on another origin", function()
  it("reads files, blocks, CARs, ranges and errors, and the headers it needs", function()
    if not io.open(chromium) then
      pending("Chromium is not installed (scripts/deps.sh test installs it)")
      return
    end
    local dir = os.tmpname()
    os.remove(dir)
    os.execute("mkdir -p " .. dir .. "/page && cp tests/lua-exe/browser/index.html " .. dir .. "/page/")
    local page_root = tostring(ipfsrt.pack(dir .. "/page", { output = dir .. "/page.car" }))
    local gw = ipfsrt.serve { cars = { FIX .. "gateway-cache.car" } }
    local site = ipfsrt.serve { cars = { dir .. "/page.car" } }
    local ROOT1 = "bafybeib3ffl2teiqdncv3mkz4r23b5ctrwkzrrhctdbne6iboayxuxk5ui"
    local url = string.format("%s/ipfs/%s/?gw=%s&root=%s", site:url(), page_root, gw:url(), ROOT1)
    local cmd = string.format("timeout 120 %s --headless --no-sandbox --disable-gpu --disable-dev-shm-usage " ..
      "--user-data-dir=%s/profile --virtual-time-budget=30000 --dump-dom %s 2>/dev/null", chromium, dir,
      exe.sh_quote(url))
    local dom = io.popen(cmd):read("a")
    gw:stop()
    site:stop()
    os.execute("rm -rf " .. dir)
    local results = ipfsrt.json.decode(assert(dom:match("<body>%s*(%[.*%])%s*</body>"), "no results in: " .. dom))
    local by = {}
    for _, r in ipairs(results) do by[r.name] = r end
    for _, name in ipairs { "file", "raw", "raw by Accept", "car", "range", "suffix range", "missing", "custom header" } do
      assert.is_nil(by[name].error, name .. ": " .. tostring(by[name].error))
    end
    assert.equal(200, by.file.status)
    assert.equal("68656c6c6f0a", by.file.hex) -- "hello\n"
    assert.truthy(by.file.roots:find(ROOT1, 1, true))
    assert.truthy(by.file.etag)
    assert.equal("application/vnd.ipld.raw", by.raw.type)
    assert.equal(by.raw.length, by["raw by Accept"].length)
    assert.truthy(by.car.type:find("application/vnd.ipld.car", 1, true))
    assert.equal(206, by.range.status)
    assert.equal("656c6c", by.range.hex)
    assert.equal("bytes 1-3/6", by.range.range)
    assert.equal(206, by["suffix range"].status)
    assert.equal("6f0a", by["suffix range"].hex)
    assert.equal(404, by.missing.status)
    assert.equal(200, by["custom header"].status)
  end)
end)
