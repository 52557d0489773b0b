-- Dispatcher for the ipfsrt executable: subcommands are the modules in
-- lua/ipfsrt/cli/; anything else is a Lua script to run.
local ipfsrt = require "ipfsrt"

local M = {}

local function cli_dirs()
  local dirs, seen = {}, {}
  for template in package.path:gmatch("[^;]+") do
    local dir = template:match("^(.*)/%?%.lua$")
    if dir and not seen[dir] then
      seen[dir] = true
      dirs[#dirs + 1] = dir .. "/ipfsrt/cli"
    end
  end
  return dirs
end

local function subcommands()
  local names, seen = {}, {}
  for _, dir in ipairs(cli_dirs()) do
    local ok, entries = pcall(ipfsrt.listdir, dir)
    if ok then
      for _, e in ipairs(entries) do
        local name = e:match("^([%w-]+)%.lua$")
        if name and name ~= "init" and not seen[name] then
          seen[name] = true
          names[#names + 1] = name
        end
      end
    end
  end
  table.sort(names)
  return names
end

local function help()
  local out = {
    "usage: ipfsrt SUBCOMMAND [ARGS...]     run a subcommand",
    "       ipfsrt SCRIPT.lua [ARGS...]     run a Lua script (module 'ipfsrt' preloaded)",
    "       ipfsrt -v SCRIPT.lua [ARGS...]  the same, errors with a traceback",
    "       ipfsrt -e 'CODE' | ipfsrt -     run Lua code from the argument or stdin",
    "       ipfsrt                          interactive prompt (on a terminal)",
    "       ipfsrt --version (-V) | --help",
    "",
    "subcommands:",
  }
  for _, name in ipairs(subcommands()) do
    local ok, mod = pcall(require, "ipfsrt.cli." .. name)
    local summary = ok and type(mod) == "table" and mod.summary or "(failed to load)"
    out[#out + 1] = string.format("  %-10s %s", name, summary)
  end
  out[#out + 1] = ""
  out[#out + 1] = "'ipfsrt SUBCOMMAND --help' describes one subcommand."
  print(table.concat(out, "\n"))
  return 0
end


local function message_of(e)
  if ipfsrt.error.is(e) then return e.code .. ": " .. e.message end
  return tostring(e)
end

local function run_subcommand(name, mod, args)
  if args[1] == "--help" or args[1] == "-h" then
    print(mod.usage or mod.summary or name)
    return 0
  end
  local ok, result = xpcall(mod.run, function(e)
    if os.getenv("IPFSRT_DEBUG") and not ipfsrt.error.is(e) then
      return debug.traceback(tostring(e), 2)
    end
    return e
  end, args)
  if ok then return result or 0 end
  io.stderr:write("ipfsrt ", name, ": ", message_of(result), "\n")
  if ipfsrt.error.is(result, "usage") then
    io.stderr:write("(see 'ipfsrt ", name, " --help')\n")
    return 2
  end
  if ipfsrt.error.is(result, "bad_policy") or ipfsrt.error.is(result, "bad_argument") then
    return 2 -- a mistake in what was asked for
  end
  return 1
end

local function run_script(path, argv)
  local chunk, err = loadfile(path)
  if not chunk then
    io.stderr:write("ipfsrt: ", err, "\n")
    return 1
  end
  local arg = { [0] = path }
  for i = 2, #argv do arg[i - 1] = argv[i] end
  _G.arg = arg
  chunk(table.unpack(arg, 1, #arg))
  return 0
end

function M.main(argv)
  local first = argv[1]
  if first == "--help" or first == "-h" or first == "help" then return help() end
  if first == "--version" or first == "-V" then return require("ipfsrt.cli.version").run({}) end
  if first:match("^[%w][%w-]*$") and package.searchpath("ipfsrt.cli." .. first, package.path) then
    local rest = table.move(argv, 2, #argv, 1, {})
    return run_subcommand(first, require("ipfsrt.cli." .. first), rest)
  end
  if first:sub(1, 1) == "-" then
    io.stderr:write("ipfsrt: unknown option ", first, " (see 'ipfsrt --help')\n")
    return 2
  end
  local f = io.open(first, "r")
  if not f then
    io.stderr:write("ipfsrt: '", first, "' is neither a subcommand nor a script file (see 'ipfsrt --help')\n")
    return 2
  end
  f:close()
  return run_script(first, argv)
end

return M
