-- ipfsrt.dataset.cftime from a stock lua5.4: CF calendars, dates checked against
-- them, and times printed as they read back (xarray's answers are checked in
-- tests/dataset/cf_cases.py).
local cftime = require "ipfsrt.dataset.cftime"

describe("ipfsrt.dataset.cftime", function()
  it("knows CF's calendars by any of their names, and refuses others", function()
    assert.equal("standard", cftime.calendar("Gregorian").name)
    assert.equal("noleap", cftime.calendar("365_day").name)
    assert.equal("standard", cftime.calendar().name)
    local cal, why = cftime.calendar("martian")
    assert.is_nil(cal)
    assert.truthy(why:find("martian", 1, true))
  end)

  it("counts days as each calendar does", function()
    local function date(cal, days) return cftime.format(days * 86400, cftime.calendar(cal)) end
    local function day(cal, text) return cftime.parse(text, cftime.calendar(cal)) / 86400 end
    assert.equal("1970-03-01", date("noleap", 59))
    assert.equal("1970-02-29", date("all_leap", 59))
    assert.equal("1970-02-30", date("360_day", 59))
    assert.equal(-141427, day("standard", "1582-10-15"))
    assert.equal(-141428, day("standard", "1582-10-04")) -- the day before, ten days earlier by name
    assert.is_nil(cftime.parse("1582-10-10", cftime.calendar("standard")))
    assert.is_nil(cftime.parse("2001-02-29", cftime.calendar("standard")))
    assert.is_nil(cftime.parse("2000-13-01", cftime.calendar("360_day")))
    assert.equal("-001-12-31", date("julian", day("julian", "0001-01-01") - 1)) -- no year 0
  end)

  it("prints times of day to the microsecond, rounding into the next day", function()
    local std = cftime.calendar()
    assert.equal("1970-01-01T12:00:00", cftime.format(43200, std))
    assert.equal("1970-01-01T00:00:00.5", cftime.format(0.5, std))
    assert.equal("1970-01-02", cftime.format(86399.9999999, std))
    assert.equal("NaT", cftime.format(0 / 0, std))
    assert.is_nil(cftime.format(1e300, std))
    local u = cftime.units("hours since 2000-01-01 06:00", std)
    assert.equal(3600, u.scale)
    assert.equal("2000-01-02T06:00:00", cftime.format(24 * u.scale + u.epoch, std))
    local _, why = cftime.units("fortnights since 2000-01-01", std)
    assert.truthy(why:find("fortnights", 1, true))
  end)
end)
