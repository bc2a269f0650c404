-- The whole life of a charge, four requests: create → checkout complete → capture 2000 → refund 500.
-- wrk cannot tie a response to its connection, so each thread keeps queues of charges waiting for
-- their next step and every request() serves the most advanced step first; a response tells by its
-- body which step it answers. Every mutating request carries an Idempotency-Key.
local c = require("common")
c.declare("created", "paid", "captured", "refunded")
setup, done = c.setup, c.done

local create_body = '{"amount":2500,"currency":"usd","description":"bench flow",' ..
  '"return_url":"https://shop.example/thanks","cancel_url":"https://shop.example/cart"}'
local pay_body = '{"paymentMethod":"card","paymentMethodDetails":' ..
  '{"card_number":"4242424242424242","exp_month":12,"exp_year":2099,"cvc":"123"}}'
local capture_body = '{"amount":2000}'
local refund_body = '{"amount":500,"reason":"customer_request"}'

local to_pay, to_capture, to_refund = {}, {}, {}

local function pop(queue)
  local n = #queue
  if n == 0 then return nil end
  local id = queue[n]
  queue[n] = nil
  return id
end

function request()
  local id = pop(to_refund)
  if id then
    return wrk.format("POST", c.API .. "/charges/" .. id .. "/refunds", c.json_headers(c.new_key("refund")), refund_body)
  end
  id = pop(to_capture)
  if id then
    return wrk.format("POST", c.API .. "/charges/" .. id .. "/capture", c.json_headers(c.new_key("capture")), capture_body)
  end
  id = pop(to_pay)
  if id then
    return wrk.format("POST", "/checkout/" .. id .. "/complete", c.public_headers(c.new_key("pay")), pay_body)
  end
  return wrk.format("POST", c.API .. "/charges", c.json_headers(c.new_key("create")), create_body)
end

function response(status, headers, body)
  if status ~= 200 and status ~= 201 then
    c.note_error(status, body)
    return
  end
  -- Charges first: a charge body may hold refunds, a refund body only names its charge.
  if string.find(body, '"object":"charge"', 1, true) and string.find(body, '"status":"captured"', 1, true) then
    c.count("captured")
    table.insert(to_refund, c.body_field(body, "id"))
  elseif string.find(body, '"object":"charge"', 1, true) and string.find(body, '"status":"pending"', 1, true) then
    c.count("created")
    table.insert(to_pay, c.body_field(body, "id"))
  elseif string.find(body, '"object":"refund"', 1, true) then
    c.count("refunded")
  elseif string.find(body, '"success":true', 1, true) then
    c.count("paid")
    table.insert(to_capture, c.body_field(body, "chargeId"))
  else
    c.note_error(status, body)
  end
end
