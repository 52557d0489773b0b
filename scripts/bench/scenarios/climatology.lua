-- climatology: the monthly climatology of sst and the last day's anomaly
-- against it (a map).
return {
  name = "climatology", order = 7,
  description = "monthly climatology, then the last day's anomaly map",
  run = function(ctx)
    local sst = ctx.dataset.sst
    local clim = sst:groupby("time.month"):mean()
    return (sst:groupby("time.month") - clim):isel({ time = -1 }):values()
  end,
}
