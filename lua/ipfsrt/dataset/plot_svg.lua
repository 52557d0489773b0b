-- ipfsrt.dataset.plot_svg: the SVG forms of ipfsrt.dataset.plot's pictures. A line plot is
-- all vector; a map's field (and its colour bar's scale) is an embedded PNG
-- image, as matplotlib's SVG holds an image, with the title, ticks, frame
-- and labels in SVG text and lines.
local ipfsrt = require "ipfsrt"
local nd = ipfsrt.ndarray

local M = {}

local function esc(s) return (tostring(s):gsub("&", "&amp;"):gsub("<", "&lt;"):gsub(">", "&gt;")) end

local COLORS = { "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b" }

local function write(path, parts, what)
  local f, why = io.open(path, "w")
  if not f then error(ipfsrt.error.new("io", "plot: " .. what .. ": " .. tostring(why)), 3) end
  f:write(table.concat(parts, "\n"))
  f:close()
end

-- ------------------------------------------------------------------- line

local W, H, LEFT, RIGHT, TOP, BOTTOM = 800, 380, 70, 20, 40, 60

-- Grid lines and labels of both axes.
local function axes(out, p, px, py)
  for _, t in ipairs(p.yticks) do
    out[#out + 1] = string.format('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/>' ..
      '<text x="%d" y="%.1f" text-anchor="end">%s</text>', LEFT, py(t[1]), W - RIGHT, py(t[1]), LEFT - 6,
      py(t[1]) + 4, esc(t[2]))
  end
  for _, t in ipairs(p.xticks) do
    out[#out + 1] = string.format('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="black"/>' ..
      '<text x="%.1f" y="%d" text-anchor="middle">%s</text>', px(t[1]), H - BOTTOM, px(t[1]), H - BOTTOM + 5,
      px(t[1]), H - BOTTOM + 19, esc(t[2]))
  end
end

-- Each series' path (NaN: a gap), and a legend when there are several.
local function lines(out, series, px, py)
  for i, s in ipairs(series) do
    local d, pen = {}, "M"
    for k, y in ipairs(s.ys) do
      if y == y then d[#d + 1] = string.format("%s%.1f %.1f", pen, px(s.xs[k]), py(y)); pen = "L" else pen = "M" end
    end
    local color = COLORS[(i - 1) % #COLORS + 1]
    out[#out + 1] = string.format('<path d="%s" fill="none" stroke="%s" stroke-width="1.5"><title>%s</title></path>',
      table.concat(d, " "), color, esc(s.label))
    if #series > 1 then
      out[#out + 1] = string.format('<rect x="%d" y="%d" width="12" height="3" fill="%s"/><text x="%d" y="%d">%s</text>',
        LEFT + 10 + (i - 1) * 160, TOP + 6, color, LEFT + 26 + (i - 1) * 160, TOP + 11, esc(s.label))
    end
  end
end

-- line(path, plot): plot as ipfsrt.plot.line lays it out (series, ranges,
-- ticks {at, label}, title, xlabel, ylabel).
function M.line(path, p)
  local function px(x) return LEFT + (W - LEFT - RIGHT) * (x - p.xlo) / (p.xhi - p.xlo) end
  local function py(y) return TOP + (H - TOP - BOTTOM) * (1 - (y - p.ylo) / (p.yhi - p.ylo)) end
  local out = { string.format('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" ' ..
    'font-family="sans-serif" font-size="12">', W, H), string.format('<rect width="%d" height="%d" fill="white"/>', W, H),
    string.format('<text x="%d" y="24" font-size="16">%s</text>', LEFT, esc(p.title)) }
  axes(out, p, px, py)
  lines(out, p.series, px, py)
  local mid = (TOP + H - BOTTOM) // 2
  out[#out + 1] = string.format('<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="black"/>', LEFT, TOP,
    W - LEFT - RIGHT, H - TOP - BOTTOM)
  out[#out + 1] = string.format('<text x="16" y="%d" transform="rotate(-90 16 %d)" text-anchor="middle">%s</text>',
    mid, mid, esc(p.ylabel))
  out[#out + 1] = string.format('<text x="%d" y="%d" text-anchor="middle">%s</text>', (LEFT + W - RIGHT) // 2, H - 14,
    esc(p.xlabel))
  out[#out + 1] = "</svg>\n"
  write(path, out, "line")
end

-- -------------------------------------------------------------------- map

-- A PNG written by fn(file) as a data: URI (base64, padded).
local function png_uri(fn)
  local tmp = os.tmpname()
  local ok, why = pcall(fn, tmp)
  local f = ok and io.open(tmp, "rb")
  local bytes = f and f:read("a")
  if f then f:close() end
  os.remove(tmp)
  if not ok then error(why, 0) end
  local b64 = ipfsrt.multibase.encode("base64", bytes):sub(2) -- multibase's "m" prefix off
  return "data:image/png;base64," .. b64 .. string.rep("=", (4 - #b64 % 4) % 4)
end

local MAP_LEFT, MAP_TOP, PAD, BAR_H = 70, 44, 12, 14

-- map(path, x, fig): the field x as ipfsrt.plot.map lays it out (fig: vmin,
-- vmax, cmap, scale, flip, title, units, xticks and yticks {at (cells),
-- label}, bar_ticks {value, label}).
function M.map(path, x, fig)
  local s, rows, cols = fig.scale, x.shape[1], x.shape[2]
  local fw, fh = cols * s, rows * s
  local field = png_uri(function(tmp)
    ipfsrt.image.write_figure(tmp, x, { vmin = fig.vmin, vmax = fig.vmax, cmap = fig.cmap, scale = s, flip = fig.flip,
      colorbar = false })
  end)
  local bar = png_uri(function(tmp)
    ipfsrt.image.write_figure(tmp, nd.linspace(fig.vmin, fig.vmax, 256):reshape { 1, 256 },
      { vmin = fig.vmin, vmax = fig.vmax, cmap = fig.cmap, scale = 1, colorbar = false })
  end)
  local bar_top = MAP_TOP + fh + 34
  local w, h = MAP_LEFT + fw + 40, bar_top + BAR_H + 56
  local out = { string.format('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" ' ..
    'font-family="sans-serif" font-size="12">', w, h), string.format('<rect width="%d" height="%d" fill="white"/>', w, h),
    string.format('<text x="%d" y="28" font-size="16">%s</text>', PAD, esc(fig.title or "")),
    string.format('<image x="%d" y="%d" width="%d" height="%d" preserveAspectRatio="none" ' ..
      'style="image-rendering:pixelated" href="%s"/>', MAP_LEFT, MAP_TOP, fw, fh, field),
    string.format('<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="black"/>', MAP_LEFT, MAP_TOP, fw, fh) }
  for _, t in ipairs(fig.xticks or {}) do
    local tx = MAP_LEFT + (t[1] + 0.5) * s
    out[#out + 1] = string.format('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="black"/>' ..
      '<text x="%.1f" y="%d" text-anchor="middle">%s</text>', tx, MAP_TOP + fh, tx, MAP_TOP + fh + 5, tx,
      MAP_TOP + fh + 19, esc(t[2]))
  end
  for _, t in ipairs(fig.yticks or {}) do
    local ty = MAP_TOP + ((fig.flip and rows - 1 - t[1] or t[1]) + 0.5) * s
    out[#out + 1] = string.format('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="black"/>' ..
      '<text x="%d" y="%.1f" text-anchor="end">%s</text>', MAP_LEFT - 5, ty, MAP_LEFT, ty, MAP_LEFT - 8, ty + 4,
      esc(t[2]))
  end
  out[#out + 1] = string.format('<image x="%d" y="%d" width="%d" height="%d" preserveAspectRatio="none" href="%s"/>' ..
    '<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="black"/>', MAP_LEFT, bar_top, fw, BAR_H, bar,
    MAP_LEFT, bar_top, fw, BAR_H)
  for _, t in ipairs(fig.bar_ticks or {}) do
    local tx = MAP_LEFT + (t[1] - fig.vmin) / (fig.vmax - fig.vmin) * fw
    out[#out + 1] = string.format('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="black"/>' ..
      '<text x="%.1f" y="%d" text-anchor="middle">%s</text>', tx, bar_top + BAR_H, tx, bar_top + BAR_H + 5, tx,
      bar_top + BAR_H + 19, esc(t[2]))
  end
  if fig.units then
    out[#out + 1] = string.format('<text x="%.1f" y="%d" text-anchor="middle">%s</text>', MAP_LEFT + fw / 2,
      bar_top + BAR_H + 40, esc(fig.units))
  end
  out[#out + 1] = "</svg>\n"
  write(path, out, "map")
end

return M
