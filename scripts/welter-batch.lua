-- wrk script: POST batches of BATCH random 8-coin Welter positions (squares < 2^20) to the path
-- given on the command line (/v1/welter/value/batch); BATCH=0 posts single positions in the
-- single endpoint's shape ({"position": [...]}) instead. 64 bodies are drawn per thread
-- (fixed seed) and cycled, so generating them costs wrk nothing during the run.
local batch = tonumber(os.getenv("BATCH") or "10")
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local bodies, n = {}, 0
local function position()
  local seen, coins = {}, {}
  while #coins < 8 do
    local x = math.random(0, 1048575)
    if not seen[x] then seen[x] = true; coins[#coins + 1] = x end
  end
  return "[" .. table.concat(coins, ",") .. "]"
end
function init(args)
  math.randomseed(4242)
  for i = 1, 64 do
    if batch == 0 then
      bodies[i] = '{"position":' .. position() .. '}'
    else
      local ps = {}
      for j = 1, batch do ps[j] = position() end
      bodies[i] = '{"positions":[' .. table.concat(ps, ",") .. ']}'
    end
  end
end
function request()
  n = n % #bodies + 1
  return wrk.format(nil, nil, nil, bodies[n])
end
done = function(summary, latency, requests)
  local per = (batch == 0) and 1 or batch
  local rps = summary.requests / (summary.duration / 1e6)
  io.write(string.format("RESULT requests/s=%.0f positions/s=%.0f p50_ms=%.3f p99_ms=%.3f errors=%d non2xx=%d\n",
    rps, rps * per, latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout,
    summary.errors.status))
end
