-- The ceilings: POST /echo with a charge-sized JSON body.
local c = require("common")
setup, done = c.setup, c.done
local body = '{"amount":2500,"currency":"usd","description":"bench order",' ..
  '"metadata":{"order_id":"6735"},"return_url":"https://shop.example/thanks",' ..
  '"cancel_url":"https://shop.example/cart"}'
local headers = {["Content-Type"] = "application/json"}

function request()
  return wrk.format("POST", "/echo", headers, body)
end

function response(status, headers, resp)
  if status ~= 201 then c.note_error(status, resp) end
end
