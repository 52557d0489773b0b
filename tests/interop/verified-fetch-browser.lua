-- An independent verifying client in a real browser: @helia/verified-fetch,
-- bundled for a page by esbuild (verified-fetch/browser.mjs), runs in Debian's
-- Chromium (headless) on a page served by one gateway and reads a dataset in
-- the demo's layout (scripts/sample/oisst.lua, two days) through another
-- origin: ipfsrt serve, then ipfsrt serve --upstream in front of it. Every
-- file it reads must hash as the dataset folder's does.
-- Usage: ipfsrt verified-fetch-browser.lua WORKDIR ESBUILD [IPFSRT_EXE]
local ipfsrt = require "ipfsrt"

local work, esbuild, exe = arg[1], arg[2], arg[3] or "build/ipfsrt"
assert(work and esbuild, "usage: verified-fetch-browser.lua WORKDIR ESBUILD [IPFSRT_EXE]")
local chromium = os.getenv("CHROMIUM") or "/usr/bin/chromium"
if not io.open(chromium) then
  print("verified-fetch in a browser: SKIPPED, Chromium is not installed (scripts/deps.sh test installs it)")
  os.exit(0)
end

package.path = arg[0]:gsub("[^/]*$", "") .. "../lua-exe/?.lua;" .. package.path
local exe_helpers = require "exe"
local sh, q = exe_helpers.sh, exe_helpers.sh_quote
local here = arg[0]:gsub("[^/]*$", "")

sh("rm -rf " .. q(work) .. " && mkdir -p " .. q(work .. "/page"))
local data = work .. "/oisst-2"
local root = sh(string.format("%s scripts/sample/oisst.lua %s --days 2 --car %s 2>/dev/null", q(exe), q(data),
  q(data .. ".car"))):match("(%S+)%s*$")
sh(string.format("%s %s --bundle --format=esm --platform=browser --minify --log-level=warning --outfile=%s",
  q(esbuild), q(here .. "verified-fetch/browser.mjs"), q(work .. "/page/verified-fetch.js")))
sh("cp " .. q(here .. "verified-fetch/browser.html") .. " " .. q(work .. "/page/index.html"))
local page_root = tostring(ipfsrt.pack(work .. "/page", { output = work .. "/page.car" }))

local paths = { ".zgroup", ".zmetadata", "sst/.zarray", "sst/.zattrs", "sst/0.0.1.2", "time/0", "ice/1.0.0.3" }
local function sha256(s)
  return (ipfsrt.multihash.decode(ipfsrt.multihash.sum("sha2-256", s)).digest:gsub(".",
    function(c) return string.format("%02x", c:byte()) end))
end

local site <close> = ipfsrt.serve { cars = { work .. "/page.car" } }
local gw <close> = ipfsrt.serve { cars = { data .. ".car" }, log = work .. "/gateway.log" }
local passed, failed = 0, 0

-- The page, on a profile of its own (the browser's cache would answer a second run).
local function browse(url, via)
  local page = string.format("%s/ipfs/%s/?gw=%s&root=%s&paths=%s", site:url(), page_root, url, root,
    table.concat(paths, ","))
  -- virtual time runs Helia's timers without waiting; network fetches hold it
  local function dump(profile)
    return sh(string.format("timeout 120 %s --headless --no-sandbox --disable-gpu --disable-dev-shm-usage " ..
      "--user-data-dir=%s --virtual-time-budget=600000 --dump-dom %s 2>/dev/null", q(chromium), q(profile), q(page)))
  end
  local profile = work .. "/profile-" .. via:gsub("%W", "")
  local dom = dump(profile)
  -- a page dumped before its script ran (a loaded machine, seen once under
  -- ASan) is the browser's hiccup, not an answer: one more try, fresh profile
  if not dom:match("<body>%s*(%b{})%s*</body>") then dom = dump(profile .. "-again") end
  local got = ipfsrt.json.decode(assert(dom:match("<body>%s*(%b{})%s*</body>"), "no results in: " .. dom))
  for _, p in ipairs(paths) do
    local want = assert(io.open(data .. "/" .. p, "rb")):read("a")
    local g = got[p] or {}
    if g.status == 200 and g.length == #want and g.sha256 == sha256(want) then
      passed = passed + 1
      print(string.format("ok   verified-fetch in Chromium %s %s (%d bytes)", via, p, #want))
    else
      failed = failed + 1
      print(string.format("FAIL verified-fetch in Chromium %s %s: %s", via, p, ipfsrt.json.encode(got[p] or got)))
    end
  end
end

browse(gw:url(), "from ipfsrt serve:")
local proxy, stop_proxy = exe_helpers.start_serve({ "-q", "--upstream", gw:url(), "--log", work .. "/proxy.log" }, exe)
browse(proxy, "through ipfsrt serve --upstream:")
stop_proxy()
print(string.format("verified-fetch in a browser: %d passed, %d failed", passed, failed))
os.exit(failed == 0 and passed == 2 * #paths and 0 or 1)
