-- GET /charges/<id> over the charges listed in BENCH_CHARGE_IDS, round-robin.
local c = require("common")
setup, done = c.setup, c.done

local ids = {}
local i = 0

function init(args)
  for line in io.lines(os.getenv("BENCH_CHARGE_IDS")) do
    if line ~= "" then table.insert(ids, line) end
  end
  i = (tid or 0) * 7  -- threads start at different charges
end

function request()
  i = i % #ids + 1
  return wrk.format("GET", c.API .. "/charges/" .. ids[i], c.auth_headers())
end

function response(status, headers, resp)
  if status ~= 200 then c.note_error(status, resp) end
end
