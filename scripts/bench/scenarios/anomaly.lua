-- anomaly: the last day's anomaly map against the monthly climatology (what
-- is computed of the climatology is the analysis' choice: its month only).
return {
  name = "anomaly", order = 8,
  description = "last day's anomaly against the monthly climatology",
  run = function(ctx)
    local sst = ctx.dataset.sst
    local clim = sst:groupby("time.month"):mean()
    return (sst:groupby("time.month") - clim):isel({ time = -1 }):values()
  end,
}
