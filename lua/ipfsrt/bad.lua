-- The one way the Lua library refuses what a caller passed: an ipfsrt error
-- object (code bad_argument) whose message starts with the function at
-- fault. A module makes its own with its prefix:
--   local bad = require "ipfsrt.bad" ("dataset: ")
--   bad("unknown variable %q", name)
-- (An error object carries no position, so no level is needed.)
local ipfsrt = require "ipfsrt"

return function(prefix)
  prefix = prefix or ""
  return function(fmt, ...)
    error(ipfsrt.error.new("bad_argument", prefix .. string.format(fmt, ...)), 0)
  end
end
