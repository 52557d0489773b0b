-- Small SVG pictures for benchmark results and time series: grouped bar
-- charts and line plots, written as text (no library needed for SVG).
local M = {}

local COLORS = { "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b" }

local function esc(s) return (tostring(s):gsub("&", "&amp;"):gsub("<", "&lt;"):gsub(">", "&gt;")) end

-- bars{title =, unit =, groups = {name...}, series = {name...}, value = fn(group, series) -> number|nil,
-- log = true}: one cluster of bars per group, one colour per series.
function M.bars(o)
  local W, H, left, bottom, top = 760, 360, 70, 60, 40
  local max, min = 0, math.huge
  for _, g in ipairs(o.groups) do
    for _, s in ipairs(o.series) do
      local v = o.value(g, s)
      if v and v > 0 then max, min = math.max(max, v), math.min(min, v) end
    end
  end
  if max == 0 then max, min = 1, 1 end
  local lo, hi = o.log and math.log(min, 10) - 0.2 or 0, o.log and math.log(max, 10) + 0.1 or max * 1.1
  local function y(v)
    local t = o.log and (math.log(v, 10) - lo) / (hi - lo) or v / hi
    return top + (H - top - bottom) * (1 - t)
  end
  local out = { string.format('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" ' ..
    'font-family="sans-serif" font-size="12">', W, H),
    string.format('<rect width="%d" height="%d" fill="white"/>', W, H),
    string.format('<text x="%d" y="20" font-size="15">%s</text>', left, esc(o.title or "")),
    string.format('<text x="14" y="%d" transform="rotate(-90 14 %d)">%s</text>', H / 2, H / 2, esc(o.unit or "")) }
  local gw = (W - left - 20) / #o.groups
  local bw = gw * 0.8 / #o.series
  for gi, g in ipairs(o.groups) do
    local x0 = left + (gi - 1) * gw + gw * 0.1
    for si, s in ipairs(o.series) do
      local v = o.value(g, s)
      if v and v > 0 then
        local yy = y(v)
        out[#out + 1] = string.format('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s">' ..
          '<title>%s %s: %.3g</title></rect>', x0 + (si - 1) * bw, yy, bw * 0.95, H - bottom - yy,
          COLORS[(si - 1) % #COLORS + 1], esc(g), esc(s), v)
        out[#out + 1] = string.format('<text x="%.1f" y="%.1f" font-size="9" text-anchor="middle">%.3g</text>',
          x0 + (si - 0.5) * bw, yy - 3, v)
      end
    end
    out[#out + 1] = string.format('<text x="%.1f" y="%d" text-anchor="middle">%s</text>', x0 + gw * 0.4,
      H - bottom + 16, esc(g))
  end
  for si, s in ipairs(o.series) do
    out[#out + 1] = string.format('<rect x="%d" y="%d" width="10" height="10" fill="%s"/>' ..
      '<text x="%d" y="%d">%s</text>', left + (si - 1) * 170, H - 22, COLORS[(si - 1) % #COLORS + 1],
      left + (si - 1) * 170 + 14, H - 13, esc(s))
  end
  out[#out + 1] = string.format('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>', left, H - bottom, W - 20,
    H - bottom)
  out[#out + 1] = "</svg>\n"
  return table.concat(out, "\n")
end

-- line{title =, x = {labels...}, y = {numbers...}, unit =}: one line, NaN as gaps.
function M.line(o)
  local W, H, left, bottom, top = 760, 320, 60, 50, 40
  local lo, hi = math.huge, -math.huge
  for _, v in ipairs(o.y) do if v == v then lo, hi = math.min(lo, v), math.max(hi, v) end end
  if lo == math.huge then lo, hi = 0, 1 end
  if hi == lo then hi = lo + 1 end
  local n = #o.y
  local function px(i) return left + (W - left - 20) * (n > 1 and (i - 1) / (n - 1) or 0.5) end
  local function py(v) return top + (H - top - bottom) * (1 - (v - lo) / (hi - lo)) end
  local out = { string.format('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" ' ..
    'font-family="sans-serif" font-size="12">', W, H), string.format('<rect width="%d" height="%d" fill="white"/>', W, H),
    string.format('<text x="%d" y="20" font-size="15">%s</text>', left, esc(o.title or "")) }
  local path, pen = {}, "M"
  for i, v in ipairs(o.y) do
    if v == v then
      path[#path + 1] = string.format("%s%.1f %.1f", pen, px(i), py(v))
      pen = "L"
    else
      pen = "M"
    end
  end
  out[#out + 1] = string.format('<path d="%s" fill="none" stroke="#1f77b4" stroke-width="1.5"/>', table.concat(path, " "))
  for _, t in ipairs { lo, (lo + hi) / 2, hi } do
    out[#out + 1] = string.format('<text x="%d" y="%.1f" text-anchor="end">%.2f</text>', left - 6, py(t) + 4, t)
  end
  local step = math.max(1, n // 6)
  for i = 1, n, step do
    out[#out + 1] = string.format('<text x="%.1f" y="%d" text-anchor="middle">%s</text>', px(i), H - bottom + 16,
      esc(o.x[i] or i))
  end
  out[#out + 1] = string.format('<text x="%d" y="%d">%s</text>', left, H - 10, esc(o.unit or ""))
  out[#out + 1] = "</svg>\n"
  return table.concat(out, "\n")
end

return M
