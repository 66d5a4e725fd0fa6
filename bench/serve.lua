-- wrk script of bench/serve.sh: each request asks /masters about a position
-- drawn from the book (the FENs of `graphbook tree`, one per line in the file
-- named by the environment's SERVE_FENS), and done() prints one line the
-- script reads: requests, seconds, latency percentiles and every error.
local fens = {}
local counter = 0

local function url_encode(s)
  return (s:gsub("[^%w%-%._~/]", function(c) return string.format("%%%02X", string.byte(c)) end))
end

function init(args)
  for line in io.lines(os.getenv("SERVE_FENS")) do
    fens[#fens + 1] = "/masters?fen=" .. url_encode(line)
  end
  math.randomseed(os.time() + (tonumber(tostring({}):sub(8)) or 0))
end

function request()
  counter = counter + 1
  return wrk.format("GET", fens[math.random(#fens)])
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("SERVE_RESULT requests=%d seconds=%.3f p50_ms=%.3f p99_ms=%.3f max_ms=%.3f " ..
                         "errors_connect=%d errors_read=%d errors_write=%d errors_status=%d errors_timeout=%d\n",
                         summary.requests, summary.duration / 1e6, latency:percentile(50) / 1000,
                         latency:percentile(99) / 1000, latency.max / 1000,
                         e.connect, e.read, e.write, e.status, e.timeout))
end
