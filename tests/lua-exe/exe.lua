-- What the specs here share: running the ipfsrt executable as a real process.
local M = {}

M.EXE = (os.getenv("IPFSRT_BUILD") or "build") .. "/ipfsrt"

function M.sh_quote(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

-- Runs the executable with args; opts.stdin is fed to it (else /dev/null), opts.env
-- ("NAME=value ...", already quoted) is set for it. Returns exit code, stdout, stderr.
function M.run(args, opts)
  opts = opts or {}
  local errfile, infile = os.tmpname(), nil
  local cmd = (opts.env and opts.env .. " " or "") .. M.EXE
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
