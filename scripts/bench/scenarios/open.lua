-- open: the dataset opened (its consolidated metadata read), every variable's shape known.
return {
  name = "open", order = 1, opens = true,
  description = "open the dataset",
  run = function(ctx)
    local ds = ctx.open()
    return ds.dims.time + ds.dims.lat + ds.dims.lon
  end,
}
