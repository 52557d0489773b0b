-- ipfsrt.ndarray from Lua: 0-based indices and half-open slices (as Zarr, numpy
-- and xarray), views that share memory, and errors that name the fault.
local ipfsrt = require "ipfsrt"
local nd = ipfsrt.ndarray

describe("ipfsrt.ndarray", function()
  it("creates arrays and tells their shape, dtype and size", function()
    local a = nd.zeros({ 2, 3 }, "float32")
    assert.same({ 2, 3 }, a.shape)
    assert.equal(2, a.ndim)
    assert.equal(6, a.size)
    assert.equal(6, #a)
    assert.equal("float32", a.dtype)
    assert.same({ { 1, 1 }, { 1, 1 } }, nd.ones({ 2, 2 }, "int8"):tolist())
    assert.same({ 7, 7, 7 }, nd.full(3, 7, "uint16"):tolist())
    assert.same({ 0, 2, 4 }, nd.arange(0, 6, 2):tolist())
    assert.equal("int64", nd.arange(3).dtype)
    assert.equal("float64", nd.arange(0, 1, 0.5).dtype)
    assert.same({ 0.0, 0.5 }, nd.arange(0, 1, 0.5):tolist())
    assert.equal(1, nd.zeros({}).size) -- 0-d
    assert.equal(0, nd.zeros({ 3, 0 }).size)
  end)

  it("indexes from 0, and from the end with negatives, in get and set", function()
    local a = nd.arange(12):reshape { 3, 4 }
    assert.equal(0, a:get(0, 0))
    assert.equal(11, a:get(2, 3))
    assert.equal(11, a:get(-1, -1))
    assert.equal(4, a:get(-2, 0))
    a:set(-1, 0, 99)
    assert.equal(99, a:get(2, 0))
    local ok, err = pcall(a.get, a, 3, 0)
    assert.is_false(ok)
    assert.equal("bad_range", err.code)
    assert.equal("index 3 is out of bounds for axis 0 with size 3", err.message)
    ok, err = pcall(a.get, a, 0)
    assert.is_false(ok)
    assert.truthy(err.message:find("1 indices for an array of 2 dimensions", 1, true))
  end)

  it("slices half-open like numpy, as views", function()
    local a = nd.arange(10)
    local function s(spec) return a:slice { spec }:tolist() end
    assert.same({ 7, 8, 9 }, s { -3, nil })
    assert.same({ 8, 6, 4 }, s { 8, 2, -2 })
    assert.same({ 9, 6, 3, 0 }, s { nil, nil, -3 })
    assert.same({ 5, 6, 7, 8, 9 }, s { 5, 100 })
    assert.same({}, s { 5, 2 })
    local m = a:reshape { 2, 5 }
    local col = m:slice { { 0, nil }, 1 } -- m[:, 1]
    assert.same({ 2 }, col.shape)
    assert.same({ 1, 6 }, col:tolist())
    col:set(1, -6) -- a view: the array changes
    assert.equal(-6, a:get(6))
    assert.same({ 2, 0 }, m:slice { { 0, nil }, { 7, nil } }.shape)
    local ok, err = pcall(a.slice, a, { { 0, 5, 0 } })
    assert.is_false(ok)
    assert.truthy(err.message:find("step of 0", 1, true))
  end)

  it("transposes, reshapes and squeezes", function()
    local m = nd.arange(6):reshape { 2, 3 }
    assert.same({ { 0, 3 }, { 1, 4 }, { 2, 5 } }, m:transpose():tolist())
    assert.same({ 3, 2 }, m:reshape { -1, 2 }.shape)
    assert.same({ 0, 3, 1, 4, 2, 5 }, m:transpose():reshape(6):tolist()) -- a copy: C order of the view
    assert.same({ 3 }, nd.zeros({ 1, 3, 1 }):squeeze().shape)
    local ok, err = pcall(m.reshape, m, { 4, -1 })
    assert.is_false(ok)
    assert.truthy(err.message:find("cannot reshape", 1, true))
    local c = m:copy()
    c:set(0, 0, 100)
    assert.equal(0, m:get(0, 0))
  end)

  it("goes to and from nested Lua tables", function()
    assert.equal("int64", nd.from({ 1, 2, 3 }).dtype)
    assert.equal("float64", nd.from({ 1, 2.5 }).dtype)
    assert.equal("bool", nd.from({ true, false }).dtype)
    assert.same({ { 1, 2 }, { 3, 4 } }, nd.from({ { 1, 2 }, { 3, 4 } }):tolist())
    assert.same({ 1.5, 2.5 }, nd.from({ 1.5, 2.5 }, "float32"):tolist())
    local ok, err = pcall(nd.from, { { 1, 2 }, { 3 } })
    assert.is_false(ok)
    assert.truthy(err.message:find("ragged", 1, true))
    ok, err = pcall(nd.from, { 1, 300 }, "uint8")
    assert.is_false(ok)
    assert.truthy(err.message:find("300 does not fit uint8", 1, true))
    ok = pcall(nd.from, { 1, 2.5 }, "int8") -- 2.5 truncates, as astype does
    assert.is_true(ok)
  end)

  it("prints like numpy, abbreviated past 1000 elements", function()
    assert.equal("array([[0, 1, 2],\n       [3, 4, 5]], dtype=int64, shape=(2, 3))",
      tostring(nd.arange(6):reshape { 2, 3 }))
    assert.equal("array([0. , 0.5, nan], dtype=float64, shape=(3,))", tostring(nd.from({ 0, 0.5, 0 / 0 })))
    assert.equal("array([  1.5 ,  -2.  ,    nan, 100.25], dtype=float64, shape=(4,))",
      tostring(nd.from({ 1.5, -2, 0 / 0, 100.25 })))
    assert.equal("array([25.8 , 25.79,  0.1 ], dtype=float32, shape=(3,))",
      tostring(nd.from({ 25.8, 25.79, 0.1 }):astype("float32"))) -- float32's shortest digits
    local s = tostring(nd.arange(2000))
    assert.truthy(s:find("[   0,    1,    2, ..., 1997, 1998, 1999]", 1, true), s)
    -- 3-d: blocks a blank line apart, the middle left out on a line of its own, as numpy
    s = tostring(nd.arange(200 * 3 * 4):reshape { 200, 3, 4 })
    assert.truthy(s:find("[  32,   33,   34,   35]],\n\n       ...,\n\n       [[2364, 2365, 2366, 2367],", 1, true), s)
  end)

  it("computes elementwise with broadcasting and numpy's promotion", function()
    local a = nd.arange(6):reshape { 2, 3 }
    assert.same({ { 1, 2, 3 }, { 4, 5, 6 } }, (a + 1):tolist())
    assert.same({ { 0, 2, 4 }, { 3, 5, 7 } }, (a + nd.arange(3)):tolist()) -- (2,3) with (3,)
    assert.equal("float64", (a / 2).dtype) -- int / int is float
    assert.same({ { 0, 0, 1 }, { 1, 2, 2 } }, (a // 2):tolist())
    assert.same({ 1, -1 }, (nd.from({ -7, 7 }) % nd.from({ 2, -2 })):tolist()) -- the divisor's sign
    assert.same({ -4 }, (nd.from({ 7 }) // nd.from({ -2 })):tolist()) -- floor
    assert.same({ 0 }, (nd.from({ 7 }) // nd.from({ 0 })):tolist()) -- integers: x // 0 is 0
    assert.equal("int16", (nd.from({ 1 }, "int16") + 1).dtype) -- a scalar takes the array's dtype
    assert.equal("float64", (nd.from({ 1 }, "int16") * 0.01).dtype)
    assert.equal("float32", (nd.from({ 1 }, "float32") * 0.1).dtype)
    assert.equal("int16", (nd.from({ 1 }, "int8") + nd.from({ 1 }, "uint8")).dtype)
    assert.same({ -56 }, (nd.from({ 100 }, "int8") + 100):tolist()) -- wraps, as numpy
    local ok, err = pcall(function() return nd.from({ 1 }, "uint8") + 300 end)
    assert.is_false(ok)
    assert.truthy(err.message:find("300 does not fit uint8", 1, true))
    ok, err = pcall(function() return a + nd.arange(4) end)
    assert.is_false(ok)
    assert.truthy(err.message:find("could not be broadcast together with shapes (2, 3) (4,)", 1, true))
    local mask = a:gt(1) & a:lt(5)
    assert.equal("bool", mask.dtype)
    assert.same({ { false, false, true }, { true, true, false } }, mask:tolist())
    assert.same({ { true, true, false }, { false, false, true } }, (~mask):tolist())
    assert.same({ false, true, false }, nd.from({ 1, 0 / 0, 2 }):isnan():tolist())
  end)

  it("reduces over everything or along an axis, skipping NaN unless asked not to", function()
    local a = nd.arange(6):reshape { 2, 3 }
    assert.equal(15, a:sum())
    assert.same({ 3, 5, 7 }, a:sum(0):tolist())
    assert.same({ 3, 12 }, a:sum(-1):tolist())
    assert.equal(2.5, a:mean())
    assert.equal(0, a:min())
    assert.same({ 2, 5 }, a:max(1):tolist())
    local f = nd.from({ 1, 0 / 0, 3 })
    assert.equal(4, f:sum())
    assert.equal(2, f:mean())
    assert.equal(2, f:count())
    local nan = f:sum { skipna = false }
    assert.is_true(nan ~= nan)
    local ok, err = pcall(function() return nd.zeros({ 0 }):max() end)
    assert.is_false(ok)
    assert.truthy(err.message:find("max of an empty (or all-NaN) array", 1, true))
    ok, err = pcall(a.sum, a, 2)
    assert.is_false(ok)
    assert.truthy(err.message:find("axis 2 is out of bounds", 1, true))
    assert.equal("int64", nd.from({ 100, 100 }, "int8"):sum(0).dtype) -- no overflow: accumulated wider
    assert.equal(200, nd.from({ 100, 100 }, "int8"):sum())
  end)

  it("chooses, clips, fills, and reduces to spread, positions and truth", function()
    local a = nd.from({ { 1, 0 / 0, 3 }, { 4, 5, 6 } })
    local masked = nd.where(a:gt(2), a, 0)
    assert.same({ { 0, 0, 3 }, { 4, 5, 6 } }, masked:tolist()) -- NaN > 2 is false
    assert.equal("int16", nd.where(nd.from({ true }), nd.from({ 1 }, "int16"), 0).dtype) -- a weak 0
    assert.equal(2, a:clip(2, 4):get(0, 0))
    assert.equal(4, a:clip(nil, 4):get(1, 2))
    assert.is_true(a:clip(2, 4):get(0, 1) ~= a:clip(2, 4):get(0, 1)) -- NaN stays NaN
    local z = nd.zeros({ 2, 3 }, "int32")
    z:slice { 1 }:fill(9) -- through a view
    assert.same({ { 0, 0, 0 }, { 9, 9, 9 } }, z:tolist())
    assert.near(2.96, a:var(), 1e-12)
    assert.near(math.sqrt(2 / 3), a:std(1):get(1), 1e-12)
    assert.equal(0, a:argmin())
    assert.equal(1, a:argmin { skipna = false }) -- numpy: the first NaN
    assert.same({ 1, 1, 1 }, a:argmax(0):tolist())
    assert.is_true(a:any())
    assert.is_true(nd.from({ 1, 0 / 0 }):all()) -- NaN counts as true
    assert.is_false(nd.from({ 1, 0 }):all())
    assert.same({ 0, 0.25, 0.5, 0.75, 1 }, nd.linspace(0, 1, 5):tolist())
    assert.same({ 3, 1 }, nd.maximum(nd.from({ 1, 1 }), nd.from({ 3, 0 })):tolist())
  end)

  it("reduces several axes at once, rounds half to even, sums as it goes, assigns and joins", function()
    local a = nd.arange(24):reshape { 2, 3, 4 }
    assert.same({ 60, 92, 124 }, a:sum { 0, 2 }:tolist())
    assert.same({ 5.5, 17.5 }, a:mean({ 1, 2 }):tolist())
    local ok, err = pcall(a.sum, a, { 0, 0 })
    assert.is_false(ok)
    assert.truthy(err.message:find("given twice", 1, true))
    assert.same({ 0, 2, 2, -2 }, nd.from({ 0.5, 1.5, 2.5, -2.5 }):round():tolist())
    assert.same({ 2.68, 1.0, 0.12 }, nd.from({ 2.675, 1.005, 0.125 }):round(2):tolist())
    assert.same({ 20, 20, 40 }, nd.from({ 15, 25, 35 }):round(-1):tolist())
    assert.same({ { 0, 1, 3 }, { 3, 7, 12 } }, nd.arange(6):reshape { 2, 3 }:cumsum(1):tolist())
    assert.equal("int64", nd.from({ 100, 100 }, "int8"):cumsum().dtype)
    local c = nd.from({ 1, 0 / 0, 2 }):cumsum(0, { skipna = false })
    assert.is_true(c:get(2) ~= c:get(2)) -- NaN carries on, as numpy's
    assert.same({ 1, 1, 3 }, nd.from({ 1, 0 / 0, 2 }):cumsum(0):tolist()) -- skipped, as xarray's
    local z = nd.zeros({ 3, 3 })
    z:slice { { 1, nil }, { 1, nil } }:assign(nd.from({ 1, 2 })) -- broadcast into a view
    assert.same({ { 0, 0, 0 }, { 0, 1, 2 }, { 0, 1, 2 } }, z:tolist())
    assert.same({ 0, 1, 2.5 }, nd.concat({ nd.arange(2), nd.from({ 2.5 }) }):tolist())
    assert.same({ { 0, 0 }, { 1, 1 }, { 2, 2 } }, nd.stack({ nd.arange(3), nd.arange(3) }, 1):tolist())
    ok, err = pcall(nd.concat, { nd.zeros({ 2, 2 }), nd.zeros({ 2, 3 }) })
    assert.is_false(ok)
    assert.truthy(err.message:find("does not match", 1, true))
  end)

  it("reads and writes bytes in either byte order", function()
    local be = string.pack(">i4>i4>i4>i4", 1, -2, 3, 70000)
    local a = nd.frombytes(be, "int32", { 2, 2 }, ">")
    assert.same({ { 1, -2 }, { 3, 70000 } }, a:tolist())
    assert.equal(be, a:tobytes(">"))
    assert.equal(string.pack("<i4<i4<i4<i4", 1, -2, 3, 70000), a:tobytes()) -- "<" by default
    assert.equal(string.pack("<i4<i4", 1, 3), a:slice { { 0, nil }, 0 }:tobytes()) -- views in C order
    assert.same({ 1.5, -0.25 }, nd.frombytes(string.pack(">d>d", 1.5, -0.25), "float64", 2, ">"):tolist())
    local ok, err = pcall(nd.frombytes, "abc", "int16", 2)
    assert.is_false(ok)
    assert.truthy(err.message:find("3 bytes for 2 elements", 1, true))
  end)

  it("refuses what does not fit in memory before allocating", function()
    local ok, err = pcall(nd.zeros, { 1 << 30, 1 << 30, 1 << 30 })
    assert.is_false(ok)
    assert.equal("too_large", err.code)
    ok, err = pcall(nd.zeros, { 2 }, "float16x")
    assert.is_false(ok)
    assert.truthy(err.message:find("unknown dtype", 1, true))
  end)

  it("unscales stored values in one pass, exactly as the step-by-step way", function()
    local raw = nd.from({ { -999, 0, 1234 }, { 2999, -5, -999 } }, "int16")
    for _, t in ipairs { "float32", "float64" } do
      local one = raw:unscale(t, { -999 }, 0.01, 0.5)
      local x = raw:astype(t) * 0.01 + 0.5
      local want = nd.where(raw:eq(-999), 0 / 0, x)
      assert.equal(t, one.dtype)
      assert.equal(want:isnan():tobytes(), one:isnan():tobytes())
      assert.equal(nd.where(want:isnan(), 0, want):tobytes(), nd.where(one:isnan(), 0, one):tobytes())
      assert.is_true(one:isnan():get(0, 0) and one:isnan():get(1, 2))
    end
    local column = raw:slice { nil, 2 }                     -- a strided view
    assert.equal(12.34, column:unscale("float64", {}, 0.01):get(0))
    assert.same({ -999, 2999 }, raw:slice { nil, 0 }:unscale("float64"):tolist())
  end)
end)
