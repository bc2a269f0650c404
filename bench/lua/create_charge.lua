-- POST /charges, each with a fresh Idempotency-Key (BENCH_IDEMPOTENCY=0 sends none).
local c = require("common")
c.declare("created")
setup, done = c.setup, c.done

local use_keys = os.getenv("BENCH_IDEMPOTENCY") ~= "0"
local body = '{"amount":2500,"currency":"usd","description":"bench order",' ..
  '"metadata":{"order_id":"6735"},"return_url":"https://shop.example/thanks",' ..
  '"cancel_url":"https://shop.example/cart"}'
local path = c.API .. "/charges"

function request()
  return wrk.format("POST", path, c.json_headers(use_keys and c.new_key("create") or nil), body)
end

function response(status, headers, resp)
  if status == 201 then c.count("created") else c.note_error(status, resp) end
end
