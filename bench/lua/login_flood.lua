-- POST /auth/token with a wrong password, a fresh e-mail per request: credential stuffing that the
-- per-account throttle does not stop (each e-mail is new), so every request reaches the core's KDF pool.
-- Counted by answer: 401 hashed and refused, 503 shed by the full pool, 429 throttled (should stay 0).
local c = require("common")
c.declare("hashed", "shed", "throttled")
setup, done = c.setup, c.done

local headers = c.public_headers(nil)

function request()
  local email = c.new_key("flood") .. "@flood.example"
  local body = '{"email":"' .. email .. '","password":"not the password"}'
  return wrk.format("POST", "/api/v1/auth/token", headers, body)
end

function response(status, headers, resp)
  if status == 401 then c.count("hashed")
  elseif status == 503 then c.count("shed")
  elseif status == 429 then c.count("throttled")
  else c.note_error(status, resp) end
end
