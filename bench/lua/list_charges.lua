-- GET /charges?limit=10 (the newest page of the bench merchant's charges).
local c = require("common")
setup, done = c.setup, c.done
local path = c.API .. "/charges?limit=10"

function request()
  return wrk.format("GET", path, c.auth_headers())
end

function response(status, headers, resp)
  if status ~= 200 then c.note_error(status, resp) end
end
