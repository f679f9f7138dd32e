-- wrk script: one fixed 8-coin position, prebuilt by wrk (no Lua runs per request): the
-- cheapest load generator, to check that a ratio is not limited by the client's CPU. Eight
-- coins are below the response cache's minimum size, so every request is computed.
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"position":[1,3,7,8,11,19,23,42]}'
done = function(summary, latency, requests)
  io.write(string.format("RESULT requests/s=%.0f p50_ms=%.3f p99_ms=%.3f errors=%d non2xx=%d\n",
    summary.requests / (summary.duration / 1e6), latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout,
    summary.errors.status))
end
