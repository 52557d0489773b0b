-- S3 from Lua: the options every S3 (and web-server CAR) store takes, checked
-- here once, and uploads of files (a CAR made by ipfsrt pack) to s3://bucket/key.
local ipfsrt = require "ipfsrt"

local M = {}

local FIELDS = { endpoint = "string", region = "string", access_key = "string", secret_key = "string",
  session_token = "string", anonymous = "boolean", forbidden_is_absent = "boolean", concurrency = "number",
  retries = "number", backoff = "number", part_size = "number" }

local bad_as = require "ipfsrt.bad"
local function bad(who, fmt, ...) bad_as(who .. ": ")(fmt, ...) end

-- options(spec[, who]) -> spec, checked: each field as AWS tools take it (see
-- ipfsrt/s3.h); what is not given comes from the environment (AWS_*).
function M.options(spec, who)
  who = who or "s3"
  if spec == nil then return nil end
  if type(spec) ~= "table" then bad(who, "s3 options must be a table") end
  for k, v in pairs(spec) do
    if not FIELDS[k] then bad(who, "s3 option %s is not one of endpoint, region, access_key, secret_key, "
      .. "session_token, anonymous, forbidden_is_absent, concurrency, retries, backoff, part_size", tostring(k)) end
    if type(v) ~= FIELDS[k] then bad(who, "s3 option %s must be a %s", k, FIELDS[k]) end
  end
  return spec
end

-- put_file(url, path[, s3 options]): the file's bytes to s3://bucket/key,
-- streamed from the file: one PUT up to part_size (64 MiB), else a multipart
-- upload in parts of it.
function M.put_file(url, path, opts)
  if type(url) ~= "string" or not url:find("^s3://[^/]+/.") then bad("s3.put_file", "url must be s3://bucket/key") end
  if type(path) ~= "string" then bad("s3.put_file", "path must be a string") end
  require("ipfsrt.core").s3_put_file(url, path, M.options(opts, "s3.put_file"))
end

return M
