-- Runs a peer through a fresh `ipfsrt serve --upstream GATEWAY` (a cold
-- verifying gateway, or one over a warm --cache-dir): starts it, runs the
-- command with {PROXY} replaced by its URL, prints what the command printed,
-- stops it. For make bench-peers (xarray through the proxy).
-- Usage: ipfsrt scripts/bench/peers/proxied.lua GATEWAY [--cache-dir DIR] -- COMMAND...
local gateway = assert(arg[1], "usage: proxied.lua GATEWAY [--cache-dir DIR] -- COMMAND...")
local exe = os.getenv("IPFSRT_EXE") or "build/ipfsrt"
local extra, i = {}, 2
while arg[i] and arg[i] ~= "--" do
  extra[#extra + 1] = arg[i]
  i = i + 1
end
local command = {}
for k = i + 1, #arg do command[#command + 1] = arg[k] end

local function quote(s) return "'" .. s:gsub("'", "'\\''") .. "'" end
local urlfile, pidfile = os.tmpname(), os.tmpname()
local serve = { exe, "serve", "-q", "--upstream", gateway }
for _, a in ipairs(extra) do serve[#serve + 1] = a end
for k, a in ipairs(serve) do serve[k] = quote(a) end
assert(os.execute(string.format("sh -c 'echo $$ > %s; exec %s' > %s 2>/dev/null < /dev/null &", pidfile,
  table.concat(serve, " "):gsub("'", "'\\''"), urlfile)))
local url
for _ = 1, 200 do
  local f = io.open(urlfile)
  url = f and f:read("l")
  if f then f:close() end
  if url and url:match("^http://") then break end
  os.execute("sleep 0.02")
end
local pid = io.open(pidfile):read("l")
local function stop()
  os.execute("kill " .. pid .. " 2>/dev/null; while kill -0 " .. pid .. " 2>/dev/null; do sleep 0.02; done")
  os.remove(urlfile)
  os.remove(pidfile)
end
if not url then
  stop()
  error("the proxy did not start")
end
for k, a in ipairs(command) do command[k] = quote((a:gsub("{PROXY}", url))) end
local p = io.popen(table.concat(command, " "))
io.write(p:read("a"))
local ok = p:close()
stop()
os.exit(ok and 0 or 1)
