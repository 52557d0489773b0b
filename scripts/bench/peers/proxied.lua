-- Runs a peer through a fresh `ipfsrt serve --upstream GATEWAY` (a cold
-- verifying gateway, or one over a warm --cache-dir): starts it, runs the
-- command with {PROXY} replaced by its URL, prints what the command printed,
-- stops it. For make bench-peers (xarray through the proxy).
-- Usage: ipfsrt scripts/bench/peers/proxied.lua GATEWAY [--cache-dir DIR] -- COMMAND...
package.path = (arg[0]:match("^(.*)/peers/") or "scripts/bench") .. "/lib/?.lua;" .. package.path
local bench = require "bench"

local gateway = assert(arg[1], "usage: proxied.lua GATEWAY [--cache-dir DIR] -- COMMAND...")
local exe = os.getenv("IPFSRT_EXE") or "build/ipfsrt"
local serve, i = { "-q", "--upstream", gateway }, 2
while arg[i] and arg[i] ~= "--" do
  serve[#serve + 1] = arg[i]
  i = i + 1
end
local url, stop = bench.start_serve(exe, serve)
local command = {}
for k = i + 1, #arg do command[#command + 1] = "'" .. arg[k]:gsub("{PROXY}", url):gsub("'", "'\\''") .. "'" end
local p = io.popen(table.concat(command, " "))
io.write(p:read("a"))
local ok = p:close()
stop()
os.exit(ok and 0 or 1)
