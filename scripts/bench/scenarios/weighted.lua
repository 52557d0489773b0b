-- weighted: the global mean sst of every day, weighted by cos(latitude).
return {
  name = "weighted", order = 6,
  description = "global mean per day, cos(lat)-weighted (every chunk)",
  run = function(ctx)
    local ds = ctx.dataset
    return ds.sst:mean({ "lat", "lon" }, { weights = ds.lat:deg2rad():cos() }):values()
  end,
}
