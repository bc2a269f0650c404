-- Shared by every bench script: auth headers, unique idempotency keys, spreading threads over several
-- gateways, per-thread counters and the machine-readable summary that scripts/bench/wrk.py parses.
--
-- wrk runs one Lua state per thread plus one for setup()/done(); counters live as globals in the
-- thread states and done() reads them back with thread:get(). Environment (set by scripts/bench):
--   BENCH_SECRET_KEY   sk_test_… of the bench merchant
--   BENCH_RUN_ID       makes idempotency keys unique across runs
--   BENCH_TARGETS      "host:port,host:port" to spread threads over several gateways (optional)
--   BENCH_CHARGE_IDS   file with one charge id per line (retrieve)
--   BENCH_OUT_DIR      where scripts may write files (ids the client saw created)

local M = {}

M.API = "/api/v1/connect"
M.threads = {}
M.counter_names = {}

local secret = os.getenv("BENCH_SECRET_KEY") or ""
local run_id = os.getenv("BENCH_RUN_ID") or tostring(os.time())

function M.json_headers(key)
  local h = {["Authorization"] = "Bearer " .. secret, ["Content-Type"] = "application/json"}
  if key then h["Idempotency-Key"] = key end
  return h
end

function M.auth_headers()
  return {["Authorization"] = "Bearer " .. secret}
end

function M.public_headers(key)
  local h = {["Content-Type"] = "application/json"}
  if key then h["Idempotency-Key"] = key end
  return h
end

local seq = 0
-- `tid` is set per thread by setup(); keys stay unique across threads and runs.
function M.new_key(kind)
  seq = seq + 1
  return string.format("%s-%s-%s-%d", run_id, kind, tostring(tid or 0), seq)
end

local function split(text, sep)
  local out = {}
  for part in string.gmatch(text, "([^" .. sep .. "]+)") do table.insert(out, part) end
  return out
end

-- setup(thread): number the thread and, with BENCH_TARGETS, point it at one gateway (round-robin).
local targets = nil
function M.setup(thread)
  table.insert(M.threads, thread)
  local n = #M.threads
  thread:set("tid", n)
  local spec = os.getenv("BENCH_TARGETS")
  if spec and spec ~= "" then
    if targets == nil then
      targets = {}
      for _, hp in ipairs(split(spec, ",")) do
        local host, port = string.match(hp, "^(.*):(%d+)$")
        table.insert(targets, wrk.lookup(host, port)[1])
      end
    end
    thread.addr = targets[((n - 1) % #targets) + 1]
  end
end

-- Counters: M.count("name") in a thread; done() sums them over the threads.
function M.declare(...)
  for _, name in ipairs({...}) do
    table.insert(M.counter_names, name)
  end
end

function M.count(name, by)
  _G["c_" .. name] = (_G["c_" .. name] or 0) + (by or 1)
end

function M.body_field(body, name)
  return string.match(body, '"' .. name .. '"%s*:%s*"([^"]*)"')
end

-- Non-2xx answers by error code, kept per thread as "code=count;…" (one string: thread:get copies it).
local error_codes = {}
function M.note_error(status, body)
  local code = M.body_field(body or "", "code") or ("http_" .. status)
  local key = status .. ":" .. code
  error_codes[key] = (error_codes[key] or 0) + 1
  local parts = {}
  for k, v in pairs(error_codes) do table.insert(parts, k .. "=" .. v) end
  errors_by_code = table.concat(parts, ";")
  if first_error == nil then first_error = string.sub(body or "", 1, 300) end
end

local function encode(value)
  local t = type(value)
  if t == "number" then
    if value ~= value or value == math.huge or value == -math.huge then return "null" end
    return string.format("%.17g", value)
  elseif t == "string" then
    return '"' .. string.gsub(value, '[%c"\\]', function(c) return string.format("\\u%04x", string.byte(c)) end) .. '"'
  elseif t == "table" then
    local parts = {}
    for k, v in pairs(value) do table.insert(parts, encode(tostring(k)) .. ":" .. encode(v)) end
    return "{" .. table.concat(parts, ",") .. "}"
  elseif t == "boolean" then
    return value and "true" or "false"
  end
  return "null"
end

function M.done(summary, latency, requests)
  local counters, codes, first = {}, {}, nil
  for _, thread in ipairs(M.threads) do
    for _, name in ipairs(M.counter_names) do
      counters[name] = (counters[name] or 0) + (thread:get("c_" .. name) or 0)
    end
    local text = thread:get("errors_by_code")
    if text then
      for k, v in string.gmatch(text, "([^=;]+)=(%d+)") do codes[k] = (codes[k] or 0) + tonumber(v) end
    end
    first = first or thread:get("first_error")
  end
  local out = {
    requests = summary.requests,
    duration_us = summary.duration,
    bytes = summary.bytes,
    errors = summary.errors,
    latency_us = {
      p50 = latency:percentile(50), p90 = latency:percentile(90), p99 = latency:percentile(99),
      p999 = latency:percentile(99.9), mean = latency.mean, max = latency.max, min = latency.min,
    },
    counters = counters,
    error_codes = codes,
    first_error = first,
  }
  io.write("BENCH_JSON " .. encode(out) .. "\n")
end

return M
