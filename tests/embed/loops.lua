-- A policy whose order never returns: a C host's read must fail with
-- bad_policy naming the method, not hang (tests/embed/run.sh).
return function(ctx)
  return { order = function(self, request, gateways) while true do end end }
end
