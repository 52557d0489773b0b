-- Helpers shared by the benchmark scripts in scripts/bench/.
local M = {}

-- Runs a shell command; returns its output, raising if it failed.
function M.sh(cmd)
  local p = assert(io.popen(cmd, "r"))
  local out = p:read("a")
  assert(p:close(), "command failed: " .. cmd .. "\n" .. out)
  return out
end

function M.median(t)
  local s = { table.unpack(t) }
  table.sort(s)
  local n = #s
  return n % 2 == 1 and s[(n + 1) // 2] or (s[n // 2] + s[n // 2 + 1]) / 2
end

return M
