-- climatology: the monthly climatology of sst (every month's mean map).
return {
  name = "climatology", order = 7,
  description = "monthly climatology (every chunk)",
  run = function(ctx)
    return ctx.dataset.sst:groupby("time.month"):mean():values()
  end,
}
