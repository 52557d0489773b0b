-- time series: one point (35 N, 285 E) on every day: one chunk per day.
return {
  name = "timeseries", order = 3,
  description = "35N 285E, every day",
  run = function(ctx)
    return ctx.dataset.sst:sel { lat = 35, lon = 285, method = "nearest" }:values()
  end,
}
