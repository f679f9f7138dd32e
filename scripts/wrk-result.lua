-- The summary line of the wrk scripts scripts/welter8.lua and scripts/welter-static.lua (their
-- `done`): `RESULT requests/s=… p50_ms=… p99_ms=… errors=… non2xx=…`, which
-- scripts/hotpath-bench.sh and scripts/load-welter.sh read. Loaded with dofile from the folder
-- of the script that wrk was given.
return function(summary, latency, requests)
  io.write(string.format("RESULT requests/s=%.0f p50_ms=%.3f p99_ms=%.3f errors=%d non2xx=%d\n",
    summary.requests / (summary.duration / 1e6), latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout,
    summary.errors.status))
end
