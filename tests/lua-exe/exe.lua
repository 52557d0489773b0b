-- What the specs here share: running the ipfsrt executable as a real process.
local M = {}

M.EXE = (os.getenv("IPFSRT_BUILD") or "build") .. "/ipfsrt"

-- Local gateways for a spec: gateway([faults[, cars]]) starts an ipfsrt.serve on
-- 127.0.0.1 over cars (default_cars unless given); stop_all() stops every one.
function M.gateways(default_cars)
  local ipfsrt = require "ipfsrt"
  local started = {}
  local function gateway(faults, cars)
    local gw = ipfsrt.serve { cars = cars or default_cars, faults = faults }
    started[#started + 1] = gw
    return gw
  end
  local function stop_all()
    for _, gw in ipairs(started) do gw:stop() end
  end
  return gateway, stop_all
end

-- GET (or another method) with curl; returns status, headers (lower-case keys), body.
function M.http(url, opts)
  opts = opts or {}
  local hdr, body = os.tmpname(), os.tmpname()
  local cmd = "curl -s -g --max-time 10 -o " .. body .. " -D " .. hdr
  if opts.as_is then cmd = cmd .. " --path-as-is" end -- dots sent as written, not squashed
  if opts.method == "HEAD" then cmd = cmd .. " -I" elseif opts.method then cmd = cmd .. " -X " .. opts.method end
  local hfile = os.tmpname() -- headers from a file: some are too big for a command line
  local hf = io.open(hfile, "wb")
  for k, v in pairs(opts.headers or {}) do hf:write(k, ": ", v, "\n") end
  hf:close()
  cmd = cmd .. " -H @" .. hfile
  local _, _, curl_code = os.execute(cmd .. " " .. M.sh_quote(url))
  os.remove(hfile)
  local raw = io.open(hdr, "rb"):read("a")
  local data = io.open(body, "rb"):read("a")
  os.remove(hdr)
  os.remove(body)
  local status = tonumber(raw:match("^HTTP/%S+ (%d+)"))
  local headers = {}
  for k, v in raw:gmatch("([%w%-]+):%s*([^\r\n]*)") do headers[k:lower()] = v end
  return status, headers, data, curl_code
end

function M.slurp(path)
  local f = io.open(path, "rb")
  if not f then return nil end
  local s = f:read("a")
  f:close()
  return s
end

-- `ipfsrt serve ARGS...` (of the executable at path, default M.EXE) as a
-- process of its own: its URL, and a function that stops it (SIGTERM) and
-- returns what it wrote on stderr.
function M.start_serve(args, path)
  path = path or M.EXE
  local slurp = M.slurp
  local out, err, pid = os.tmpname(), os.tmpname(), os.tmpname()
  local cmd = { path:sub(1, 1) == "/" and path or os.getenv("PWD") .. "/" .. path, "serve" }
  for _, a in ipairs(args) do cmd[#cmd + 1] = a end
  for i, a in ipairs(cmd) do cmd[i] = M.sh_quote(a) end
  assert(os.execute(string.format("sh -c 'echo $$ > %s; exec %s' > %s 2> %s < /dev/null &", pid,
    table.concat(cmd, " "):gsub("'", "'\\''"), out, err)))
  local url
  for _ = 1, 100 do
    url = (slurp(out) or ""):match("^(http://[^\n]+)\n")
    if url then break end
    os.execute("sleep 0.05")
  end
  assert(url, "ipfsrt serve did not start: " .. (slurp(err) or ""))
  local stopped = false
  local process = tonumber((slurp(pid) or ""):match("%d+"))
  return url, function()
    if stopped then return end
    stopped = true
    local p = slurp(pid):match("%d+")
    -- gone, or a zombie its adopter has yet to reap (some take seconds)
    os.execute(string.format("kill %s; while kill -0 %s 2>/dev/null && " ..
      "[ \"$(cut -d' ' -f3 /proc/%s/stat 2>/dev/null)\" != Z ]; do sleep 0.05; done", p, p, p))
    local said = slurp(err)
    os.remove(out)
    os.remove(err)
    os.remove(pid)
    return said
  end, process
end

-- The most memory process has held so far (its peak resident set), in bytes.
function M.peak_memory(process)
  local status = M.slurp("/proc/" .. process .. "/status") or ""
  local kb = status:match("VmHWM:%s*(%d+) kB")
  return kb and tonumber(kb) * 1024
end

-- Writes data to a new file at path.
function M.put(path, data)
  local f = assert(io.open(path, "wb"))
  f:write(data)
  f:close()
end

-- n deterministic bytes (string.rep of a pattern would make many identical blocks).
function M.bytes(n, seed)
  local t, x = {}, seed
  for i = 1, n do
    x = (x * 1103515245 + 12345) & 0x7fffffff
    t[i] = string.char((x >> 16) & 0xff)
  end
  return table.concat(t)
end

-- A new folder holding a self-signed certificate for 127.0.0.1 and its key:
-- returns the folder, cert.pem and key.pem in it.
function M.self_signed()
  local dir = os.tmpname()
  os.remove(dir)
  assert(os.execute("mkdir -p " .. dir))
  local cert, key = dir .. "/cert.pem", dir .. "/key.pem"
  assert(os.execute(string.format("openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=127.0.0.1 " ..
    "-addext subjectAltName=IP:127.0.0.1 -keyout %s -out %s >/dev/null 2>&1", key, cert)))
  return dir, cert, key
end

function M.sh_quote(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

-- Runs a shell command, returning what it printed (stdout and stderr); a
-- failing command is an error that shows that output.
function M.sh(cmd)
  local p = assert(io.popen(cmd .. " 2>&1", "r"))
  local out = p:read("a")
  local ok, _, code = p:close()
  if not ok then error(string.format("command failed (%s): %s\n%s", tostring(code), cmd, out), 0) end
  return out
end

-- Runs the executable with args; opts.stdin is fed to it (else /dev/null), opts.env
-- ("NAME=value ...", already quoted) is set for it, opts.cwd is where it runs.
-- Returns exit code, stdout, stderr.
function M.run(args, opts)
  opts = opts or {}
  local errfile, infile = os.tmpname(), nil
  local exe = M.EXE:sub(1, 1) == "/" and M.EXE or os.getenv("PWD") .. "/" .. M.EXE
  local cmd = (opts.cwd and "cd " .. M.sh_quote(opts.cwd) .. " && " or "") ..
    (opts.env and opts.env .. " " or "") .. exe
  for _, a in ipairs(args) do cmd = cmd .. " " .. M.sh_quote(a) end
  cmd = cmd .. " 2>" .. errfile
  if opts.stdin then
    infile = os.tmpname()
    local f = assert(io.open(infile, "wb"))
    f:write(opts.stdin)
    f:close()
    cmd = cmd .. " <" .. infile
  else
    cmd = cmd .. " </dev/null"
  end
  local p = assert(io.popen(cmd, "r"))
  local out = p:read("a")
  local _, _, code = p:close()
  local f = assert(io.open(errfile, "rb"))
  local err = f:read("a")
  f:close()
  os.remove(errfile)
  if infile then os.remove(infile) end
  return code, out, err
end

return M
