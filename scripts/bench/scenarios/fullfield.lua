-- full field: one variable, one whole day (eight chunks).
return {
  name = "fullfield", order = 4,
  description = "one variable, one whole day",
  run = function(ctx)
    return ctx.dataset.sst:isel { time = 0 }:values()
  end,
}
