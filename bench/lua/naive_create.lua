-- The naive peer (scripts/bench/ceiling_servers.py naive): POST /charges with create_charge.lua's body, no auth.
local c = require("common")
c.declare("created")
setup, done = c.setup, c.done
local body = '{"amount":2500,"currency":"usd","description":"bench order",' ..
  '"metadata":{"order_id":"6735"},"return_url":"https://shop.example/thanks",' ..
  '"cancel_url":"https://shop.example/cart"}'
local headers = {["Content-Type"] = "application/json"}

function request()
  return wrk.format("POST", "/charges", headers, body)
end

function response(status, headers, resp)
  if status == 201 then c.count("created") else c.note_error(status, resp) end
end
