-- bulk: the mean sst over all days, every chunk of the variable read.
return {
  name = "bulk", order = 5,
  description = "mean sst over all days (every chunk)",
  run = function(ctx)
    return ctx.dataset.sst:mean()
  end,
}
