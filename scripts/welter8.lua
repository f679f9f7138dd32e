-- wrk script: POST random 8-coin Welter positions (squares < 2^20), so most requests miss the
-- cache. Set FIXED=1 in the environment to send one fixed position (every request a cache hit).
local fixed = os.getenv("FIXED") == "1"
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
math.randomseed(os.time())
request = function()
  if fixed then
    return wrk.format(nil, nil, nil, '{"position":[1,3,7,8,11,19,23,42]}')
  end
  local seen, coins = {}, {}
  while #coins < 8 do
    local x = math.random(0, 1048575)
    if not seen[x] then seen[x] = true; coins[#coins + 1] = x end
  end
  return wrk.format(nil, nil, nil, '{"position":[' .. table.concat(coins, ",") .. ']}')
end
done = function(summary, latency, requests)
  io.write(string.format("RESULT requests/s=%.0f p50_ms=%.3f p99_ms=%.3f errors=%d non2xx=%d\n",
    summary.requests / (summary.duration / 1e6), latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout,
    summary.errors.status))
end
