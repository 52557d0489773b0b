-- spatial: a 40 x 40 degree box over the Gulf Stream on one day.
return {
  name = "spatial", order = 2,
  description = "40x40 degree box over the Gulf Stream, one day",
  run = function(ctx)
    local ds = ctx.dataset
    local day = ds.time:dates()[math.min(60, ds.dims.time)]
    return ds.sst:sel { time = day, lat = { 20, 60 }, lon = { 270, 310 } }:values()
  end,
}
