-- ipfsrt.dataset.polyfit: least-squares polynomial fits along a dimension, as
-- xarray's DataArray.polyfit.
--
--   local fit = ds.sst:isel { zlev = 0 }:polyfit("time", 1)
--   fit.polyfit_coefficients          -- dims (degree, lat, lon), degree = {1, 0}: highest first
--   fit.polyfit_coefficients:sel { degree = 1 }   -- the trend, per unit of x
--   ds.sst:polyfit("time", 1, { full = true }).polyfit_residuals  -- sums of squared residuals
--   (full also gives time_matrix_rank, a number, and time_singular_values, of
--   the scaled Vandermonde matrix, as xarray's)
--
-- x is the dimension's coordinate, as xarray takes it: times as nanoseconds
-- since 1970-01-01 (so a trend is per nanosecond: times 86400e9 for per day),
-- numbers as they are, positions 0, 1, ... without a coordinate. Each series
-- is fitted on its values other than NaN (xarray's skipna): one with fewer
-- than deg + 1 of them gets lstsq's least-norm answer (and a NaN residual),
-- one with none NaN. The Vandermonde matrix is scaled column by column, as
-- xarray scales it, and solved by a QR factorization (numpy's lstsq there).
local ipfsrt = require "ipfsrt"
local nd = ipfsrt.ndarray

local M = {}
local V = require "ipfsrt.dataset.variable"
local CF = require "ipfsrt.dataset.cf"
local bad = require "ipfsrt.bad" ("dataset: ")

-- x along dim, as a Lua list of numbers.
local function x_values(v, dim)
  local c = v:_coords()[dim]
  local axis = V.axis_of(v, dim)
  if not c then
    local x = {}
    for i = 1, v.shape[axis + 1] do x[i] = i - 1 end
    return x
  end
  local values = c:_values_array():astype("float64")
  local t = CF.time_of(c.name, c.attrs)
  if t then values = (values * t.scale + t.epoch) * 1e9 end
  return values:reshape { -1 }:tolist()
end

-- The Vandermonde matrix of x's rows rows (highest power first), each column
-- divided by its norm over all of x (as xarray scales it before leaving a
-- series' missing values out): columns of A, A[j][r]; and those norms.
local function vandermonde(x, rows, k)
  local A, scale = {}, {}
  for j = 1, k do
    local col, ss = {}, 0
    for _, value in ipairs(x) do ss = ss + (value ^ (k - j)) ^ 2 end
    scale[j] = math.sqrt(ss)
    for r, i in ipairs(rows) do col[r] = scale[j] > 0 and x[i] ^ (k - j) / scale[j] or 0 end
    A[j] = col
  end
  return A, scale
end

local function dot(a, b)
  local s = 0
  for r = 1, #a do s = s + a[r] * b[r] end
  return s
end

-- The pseudo-inverse P (k rows of #rows) of the columns A: thin QR by
-- modified Gram-Schmidt done twice (orthogonal to working precision), then
-- R^-1 Q^T; and R. nil when the columns are dependent.
local function pseudo_inverse(A, k)
  local Q, R = {}, {}
  for j = 1, k do
    R[j] = {}
    local q = table.move(A[j], 1, #A[j], 1, {})
    for _ = 1, 2 do
      for i = 1, j - 1 do
        local d = dot(Q[i], q)
        R[i][j] = (R[i][j] or 0) + d
        for r = 1, #q do q[r] = q[r] - d * Q[i][r] end
      end
    end
    local norm = math.sqrt(dot(q, q))
    if norm <= 1e-12 then return nil end
    R[j][j] = norm
    for r = 1, #q do q[r] = q[r] / norm end
    Q[j] = q
  end
  local P = {}
  for j = k, 1, -1 do -- rows of R^-1 Q^T, by back substitution
    local row = table.move(Q[j], 1, #Q[j], 1, {})
    for i = j + 1, k do
      local f = R[j][i]
      for r = 1, #row do row[r] = row[r] - f * P[i][r] end
    end
    for r = 1, #row do row[r] = row[r] / R[j][j] end
    P[j] = row
  end
  return P, R
end

-- The singular values of the k x k upper triangle R (those of A), largest
-- first: the square roots of R^T R's eigenvalues, by cyclic Jacobi rotations.
local function singular_values(R, k)
  local M = {}
  for i = 1, k do
    M[i] = {}
    for j = 1, k do
      local s = 0
      for l = 1, math.min(i, j) do s = s + (R[l][i] or 0) * (R[l][j] or 0) end
      M[i][j] = s
    end
  end
  for _ = 1, 100 do
    local off = 0
    for p = 1, k - 1 do
      for q = p + 1, k do
        off = off + M[p][q] ^ 2
        if M[p][q] ~= 0 then
          local theta = (M[q][q] - M[p][p]) / (2 * M[p][q])
          local t = (theta >= 0 and 1 or -1) / (math.abs(theta) + math.sqrt(theta * theta + 1))
          local c = 1 / math.sqrt(t * t + 1)
          local sn = t * c
          for r = 1, k do -- M = J^T M J
            local a, b = M[r][p], M[r][q]
            M[r][p], M[r][q] = c * a - sn * b, sn * a + c * b
          end
          for r = 1, k do
            local a, b = M[p][r], M[q][r]
            M[p][r], M[q][r] = c * a - sn * b, sn * a + c * b
          end
        end
      end
    end
    if off < 1e-30 then break end
  end
  local out = {}
  for i = 1, k do out[i] = math.sqrt(math.max(M[i][i], 0)) end
  table.sort(out, function(a, b) return a > b end)
  return out
end

-- With fewer values m than coefficients k, lstsq's answer: the least-norm
-- c with A c = y, c = A^T (A A^T)^-1 y (Gaussian elimination on the m x m
-- system). nil when the rows are dependent.
local function least_norm(A, y, k)
  local m = #y
  local G = {}
  for a = 1, m do
    G[a] = {}
    for b = 1, m do
      local s = 0
      for j = 1, k do s = s + A[j][a] * A[j][b] end
      G[a][b] = s
    end
    G[a][m + 1] = y[a]
  end
  for p = 1, m do
    local best = p
    for r = p + 1, m do if math.abs(G[r][p]) > math.abs(G[best][p]) then best = r end end
    G[p], G[best] = G[best], G[p]
    if math.abs(G[p][p]) < 1e-300 then return nil end
    for r = 1, m do
      if r ~= p then
        local f = G[r][p] / G[p][p]
        for col = p, m + 1 do G[r][col] = G[r][col] - f * G[p][col] end
      end
    end
  end
  local c = {}
  for j = 1, k do
    local s = 0
    for a = 1, m do s = s + A[j][a] * G[a][m + 1] / G[a][a] end
    c[j] = s
  end
  return c
end

-- Coefficients (k, highest power first) of one series y with values at rows,
-- or NaNs.
local function fit_series(x, rows, y, k)
  local A, scale = vandermonde(x, rows, k)
  local c = {}
  if #rows < k then
    c = least_norm(A, y, k) or {}
  else
    local P = pseudo_inverse(A, k)
    for j = 1, k do c[j] = P and dot(P[j], y) end
  end
  for j = 1, k do c[j] = c[j] and c[j] / scale[j] or 0 / 0 end
  return c
end

-- y (..., n) -> coefficients (k, ...) for the series without NaN, at once:
-- each coefficient a weighted sum along the last axis.
local function fit_all(x, y, k)
  local rows = {}
  for i = 1, #x do rows[i] = i end
  local A, scale = vandermonde(x, rows, k)
  local P, R = pseudo_inverse(A, k)
  local out = {}
  for j = 1, k do
    if P then
      local w = nd.from(P[j], "float64") / scale[j]
      out[j] = (nd.weighted_sums(y, w, 1)) -- the sums of values times weights (not of the weights)
    else
      out[j] = nd.full(#y.shape > 1 and { table.unpack(y.shape, 1, #y.shape - 1) } or {}, 0 / 0, "float64")
    end
  end
  return out, P and R
end

-- Series holding NaN, fitted one by one on their other values.
local function refit_gaps(x, flat, coefs, k)
  local n = #x
  local gaps = flat:isnan():sum(1)
  for s, count in ipairs(gaps:tolist()) do
    if count > 0 then
      local rows, y = {}, {}
      for i, value in ipairs(flat:slice { s - 1 }:tolist()) do
        if value == value then rows[#rows + 1], y[#y + 1] = i, value end
      end
      local c = count < n and fit_series(x, rows, y, k) or {}
      for j = 1, k do coefs[j]:set(s - 1, c[j] or 0 / 0) end
    end
  end
end

-- Sums of squared residuals of each series (flat: series x n), NaN left out;
-- NaN where no more than k values were fitted (numpy's lstsq gives none then).
local function residuals(x, flat, coefs, k)
  local fitted = nd.zeros(flat.shape, "float64")
  local xs = nd.from(x, "float64")
  for j = 1, k do fitted = fitted + coefs[j]:reshape { -1, 1 } * (xs ^ (k - j)):reshape { 1, -1 } end
  local d = flat - fitted
  local fitted_values = flat:isnan():eq(false):sum(1)
  return nd.where(fitted_values:le(k), 0 / 0, nd.where(d:isnan(), 0, d * d):sum(1))
end

local function distinct(x)
  local seen, n = {}, 0
  for _, value in ipairs(x) do
    if not seen[value] then seen[value], n = true, n + 1 end
  end
  return n
end

-- A result over dims, with v's coordinates along them (and degree's, from
-- deg down to 0, for the coefficients).
local function fitted_variable(v, name, data, dims, deg)
  local coords, map = v:_coords(), {}
  for _, d in ipairs(dims) do map[d] = coords[d] end
  if deg then
    local degrees = {}
    for j = 0, deg do degrees[j + 1] = deg - j end
    map.degree = V.label_coordinate(V.dataset(v), "degree", degrees)
  end
  return V.computed(V.dataset(v), name, dims, data, {}, map, {})
end

-- v:polyfit(dim, deg[, {full = true}]) -> {polyfit_coefficients =,
-- polyfit_residuals = (full only)}: variables, as xarray's Dataset.
function M.polyfit(v, dim, deg, opts)
  opts = opts or {}
  if type(dim) ~= "string" then bad("polyfit: a dimension name first") end
  if math.type(deg) ~= "integer" or deg < 0 then bad("polyfit: deg is a whole number of 0 or more") end
  if type(opts) ~= "table" then bad("polyfit: options are a table ({full =})") end
  local axis = V.axis_of(v, dim)
  local x, k = x_values(v, dim), deg + 1
  local y = v:_values_array():astype("float64")
  local order = {}
  for i = 0, #v.dims - 1 do if i ~= axis then order[#order + 1] = i end end
  order[#order + 1] = axis
  y = y:transpose(order):copy() -- dim last
  local rest, rest_dims = { table.unpack(y.shape, 1, #y.shape - 1) }, {}
  for _, i in ipairs(order) do if i ~= axis then rest_dims[#rest_dims + 1] = v.dims[i + 1] end end
  local flat = y:reshape { -1, #x }
  local coefs, R = fit_all(x, flat, k)
  refit_gaps(x, flat, coefs, k)
  local out = { polyfit_coefficients = fitted_variable(v, "polyfit_coefficients",
    nd.stack(coefs, 0):reshape { k, table.unpack(rest) }, { "degree", table.unpack(rest_dims) }, deg) }
  if opts.full then
    out.polyfit_residuals = fitted_variable(v, "polyfit_residuals", residuals(x, flat, coefs, k):reshape(rest),
      rest_dims)
    local sv = R and singular_values(R, k) or {}
    for j = #sv + 1, k do sv[j] = 0 / 0 end
    out[dim .. "_matrix_rank"] = R and k or math.min(k, distinct(x))
    out[dim .. "_singular_values"] = fitted_variable(v, dim .. "_singular_values", nd.from(sv, "float64"),
      { "degree" }, deg)
  end
  return out
end

-- The methods this module gives the Variable class.
M.methods = { polyfit = M.polyfit }

return M
