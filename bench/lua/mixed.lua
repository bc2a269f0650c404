-- Mixed traffic for the consistency pass and the memory soak: whole charge lives with the races and
-- retries a real client produces, plus reads.
--
--   create (key) → pay (key) → capture 2000 (key) → refund 500 (key) → refund 500 (key)
--   10 % of creates, captures and first refunds are retried with the same key once answered: the
--        answer must be the original byte for byte and carry Idempotent-Replayed (replay_ok/_mismatch);
--   10 % of charges get two concurrent captures under different keys: exactly one may succeed
--        (a second success is a double_capture);
--   10 % of fully flowed charges get a third refund of 1600, which must be refused (refund_exceeds_charge);
--    5 % are voided instead of captured; every 8th request is a retrieve or a list.
--
-- wrk cannot tie an answer to its connection, so each thread keeps a queue of next steps and tells
-- from the body which step an answer belongs to (a create carries its key in metadata.k). Each thread
-- writes what it saw succeed to BENCH_OUT_DIR/seen-<thread>.txt ("created <id> <amount>",
-- "captured <id> <amount>", "refund <charge> <refund> <amount>", "voided <id>") for the database
-- checks of scripts/bench/consistency.py.
local c = require("common")
c.declare("created", "paid", "captured", "refunded", "voided", "reads", "replay_ok", "replay_mismatch",
          "replay_orphan", "double_capture", "over_refund_accepted", "unexpected")
setup, done = c.setup, c.done

local pay_body = '{"paymentMethod":"card","paymentMethodDetails":' ..
  '{"card_number":"4242424242424242","exp_month":12,"exp_year":2099,"cvc":"123"}}'
local capture_body = '{"amount":2000}'
local refund_body = '{"amount":500,"reason":"customer_request"}'

local queue = {}        -- formatted requests waiting to go out (LIFO: charges run to the end first)
local retries = {}      -- "kind:id" -> the request to send again once its first answer is in
local originals = {}    -- "kind:id" -> the first answer of a request that is retried
local captures = {}     -- charge id -> successful (non-replayed) captures
local refunds = {}      -- charge id -> successful refunds
local known, known_n = {}, 0
local seen, n = nil, 0

function init(args)
  math.randomseed(os.time() + (tid or 0) * 7919)
  local dir = os.getenv("BENCH_OUT_DIR")
  if dir then
    seen = io.open(dir .. "/seen-" .. tostring(tid) .. ".txt", "a")
    seen:setvbuf("line")
  end
end

local function note(line)
  if seen then seen:write(line, "\n") end
end

local function chance(percent)
  return math.random(100) <= percent
end

local function charge_path(id, tail)
  return c.API .. "/charges/" .. id .. (tail or "")
end

-- Queue a request; with `retry_as`, send the same bytes again after the first answer to that step.
local function push(method, path, headers, body, retry_as)
  local req = wrk.format(method, path, headers, body)
  table.insert(queue, req)
  if retry_as then retries[retry_as] = req end
end

local function create_request()
  local key = c.new_key("create")
  local body = '{"amount":2500,"currency":"usd","description":"bench mixed","metadata":{"k":"' .. key ..
    '"},"return_url":"https://shop.example/thanks","cancel_url":"https://shop.example/cart"}'
  local req = wrk.format("POST", c.API .. "/charges", c.json_headers(key), body)
  if chance(10) then retries["create:" .. key] = req end
  return req
end

function request()
  n = n + 1
  if n % 8 == 0 and known_n > 0 then
    c.count("reads")
    if n % 16 == 0 then return wrk.format("GET", c.API .. "/charges?limit=10", c.auth_headers()) end
    return wrk.format("GET", charge_path(known[math.random(known_n)]), c.auth_headers())
  end
  local queued = queue[#queue]
  if queued then
    queue[#queue] = nil
    return queued
  end
  return create_request()
end

local function replayed(headers)
  for k, v in pairs(headers) do
    if string.lower(k) == "idempotent-replayed" then return v == "true" end
  end
  return false
end

-- Which step does this answer belong to? (kind, object id), from the body's shape.
-- The order matters: a list holds charges, and a charge holds its refunds.
local function classify(body)
  if string.find(body, '"object":"list"', 1, true) then return "list", nil end
  if string.find(body, '"object":"charge"', 1, true) then
    if string.find(body, '"checkout_url"', 1, true) then return "charge", c.body_field(body, "id") end
    return "capture", c.body_field(body, "id")
  end
  if string.find(body, '"object":"refund"', 1, true) then return "refund", c.body_field(body, "id") end
  if string.find(body, '"chargeId"', 1, true) then return "pay", c.body_field(body, "chargeId") end
  return "other", nil
end

local function check_replay(kind, id, body)
  local slot = kind .. ":" .. tostring(id)
  local first = originals[slot]
  if first == nil then
    c.count("replay_orphan")
  elseif first == body then
    c.count("replay_ok")
    originals[slot] = nil
  else
    c.count("replay_mismatch")
    if first_error == nil then first_error = "replay mismatch: " .. string.sub(body, 1, 200) end
  end
end

-- The first answer to a step that is retried: keep it, send the same request again.
local function retry_after(slot, original_slot, body)
  local req = retries[slot]
  if req then
    retries[slot] = nil
    originals[original_slot] = body
    table.insert(queue, req)
  end
end

local function on_created(id, body)
  c.count("created")
  note("created " .. id .. " 2500")
  if known_n < 2000 then known_n = known_n + 1; known[known_n] = id else known[math.random(2000)] = id end
  retry_after("create:" .. (c.body_field(body, "k") or ""), "charge:" .. id, body)
  push("POST", "/checkout/" .. id .. "/complete", c.public_headers(c.new_key("pay")), pay_body)
end

local function on_paid(id)
  c.count("paid")
  local roll = math.random(100)
  if roll <= 5 then
    push("POST", charge_path(id, "/void"), c.json_headers(c.new_key("void")), "")
    return
  end
  local retry = roll <= 15 and ("capture:" .. id) or nil
  push("POST", charge_path(id, "/capture"), c.json_headers(c.new_key("capture")), capture_body, retry)
  if roll > 15 and roll <= 25 then  -- a racing second capture under another key
    push("POST", charge_path(id, "/capture"), c.json_headers(c.new_key("capture")), capture_body)
  end
end

local function on_captured(id, body)
  captures[id] = (captures[id] or 0) + 1
  if captures[id] > 1 then
    c.count("double_capture")
    return
  end
  c.count("captured")
  note("captured " .. id .. " " .. (string.match(body, '"amount_captured":(%d+)') or "?"))
  retry_after("capture:" .. id, "capture:" .. id, body)
  local retry = chance(10) and ("refund:" .. id) or nil
  push("POST", charge_path(id, "/refunds"), c.json_headers(c.new_key("refund")), refund_body, retry)
end

local function on_refunded(id, body)
  local charge = c.body_field(body, "charge")
  local amount = string.match(body, '"amount":(%d+)')
  c.count("refunded")
  note("refund " .. charge .. " " .. id .. " " .. amount)
  if amount == "1600" then c.count("over_refund_accepted") end
  refunds[charge] = (refunds[charge] or 0) + 1
  if refunds[charge] == 1 then
    retry_after("refund:" .. charge, "refund:" .. id, body)
    push("POST", charge_path(charge, "/refunds"), c.json_headers(c.new_key("refund")), refund_body)
  elseif refunds[charge] == 2 then
    captures[charge], refunds[charge] = nil, nil  -- this charge is done; keep the tables small
    if chance(10) then
      push("POST", charge_path(charge, "/refunds"), c.json_headers(c.new_key("overrefund")), '{"amount":1600}')
    end
  end
end

local created_seen = {}

function response(status, headers, body)
  if status ~= 200 and status ~= 201 then
    c.note_error(status, body)
    return
  end
  local kind, id = classify(body)
  if replayed(headers) then
    check_replay(kind, id, body)
    return
  end
  if kind == "charge" then
    local state = c.body_field(body, "status")
    if status == 201 and not created_seen[id] then
      created_seen[id] = true
      on_created(id, body)
    elseif state == "voided" and not created_seen["v" .. id] then
      -- a void answer or a retrieve of a voided charge: count each charge's void once
      created_seen["v" .. id] = true
      c.count("voided")
      note("voided " .. id)
    end
  elseif kind == "pay" then
    if string.find(body, '"success":true', 1, true) then on_paid(id) end
  elseif kind == "capture" then
    on_captured(id, body)
  elseif kind == "refund" then
    on_refunded(id, body)
  elseif kind ~= "list" then
    c.count("unexpected")
  end
end
