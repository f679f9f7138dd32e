#!/usr/bin/env python3
"""Large uploads under load: THREADS client threads each POST a large Welter position
(`/v1/welter/primes`, COINS coins, target 1: about 1.4 MB for 200,000 coins) with Python's
urllib (`Connection: close`), REQUESTS a round, while the server computes the ones it took.

Every request must get an HTTP answer: 200, or a documented refusal under load (429, 503). A
request that gets no HTTP response at all (the client's write fails with EPIPE or a reset, or the
connection closes before a status line) is a failure, and so is any other status (a 408 for a
client that sent as fast as the server read).

  scripts/upload-burst.py URL [--threads 64] [--requests 256] [--rounds 3] [--coins 200000]

Meanwhile a probe posts a small Welter position (`/v1/welter/value`, 8 coins, computed inline on
the async workers) every 50 ms on a kept-alive connection: its latency shows how responsive the
server's edge stays while it computes.

Prints one `UPLOADBURST round=R ...` line per round (outcomes, seconds, latencies of the uploads
and of the probe) and a summary line; exit status 1 when any request of any round was not
answered 200/429/503.
"""

import argparse
import collections
import http.client
import json
import random
import sys
import threading
import time
import urllib.error
import urllib.request


def main():
    p = argparse.ArgumentParser()
    p.add_argument("url", help="base URL, e.g. http://127.0.0.1:8080")
    p.add_argument("--threads", type=int, default=64)
    p.add_argument("--requests", type=int, default=256, help="requests per round")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--coins", type=int, default=200_000)
    p.add_argument("--timeout", type=float, default=120.0, help="client timeout per request (s)")
    args = p.parse_args()

    rng = random.Random(31)
    position = rng.sample(range(1_000_000), args.coins)
    body = json.dumps({"position": position, "target": 1}).encode()
    url = args.url.rstrip("/") + "/v1/welter/primes"
    print(f"UPLOADBURST body={len(body)} bytes threads={args.threads} requests={args.requests} "
          f"rounds={args.rounds}", flush=True)

    allowed = {200, 429, 503}
    failed_total = 0
    for rnd in range(1, args.rounds + 1):
        outcomes = collections.Counter()
        errors = collections.Counter()
        latencies = []
        lock = threading.Lock()
        todo = iter(range(args.requests))

        def worker():
            while True:
                with lock:
                    if next(todo, None) is None:
                        return
                req = urllib.request.Request(url, data=body, method="POST",
                                             headers={"Content-Type": "application/json"})
                t0 = time.monotonic()
                try:
                    with urllib.request.urlopen(req, timeout=args.timeout) as r:
                        r.read()
                        key = r.status
                except urllib.error.HTTPError as e:
                    e.read()
                    key = e.code
                except Exception as e:  # no HTTP answer at all
                    key = "no-answer"
                    with lock:
                        errors[f"{type(e).__name__}: {getattr(e, 'reason', e)}"] += 1
                dt = time.monotonic() - t0
                with lock:
                    outcomes[key] += 1
                    latencies.append(dt)

        probe_ms = []
        done = threading.Event()

        def probe():
            host = args.url.split("//", 1)[1].rstrip("/")
            conn = http.client.HTTPConnection(host, timeout=60)
            small = json.dumps({"position": [1, 3, 7, 8, 11, 19, 23, 30]})
            while not done.is_set():
                t = time.monotonic()
                try:
                    conn.request("POST", "/v1/welter/value", small,
                                 {"Content-Type": "application/json"})
                    conn.getresponse().read()
                    probe_ms.append((time.monotonic() - t) * 1000)
                except Exception:
                    conn.close()
                    conn = http.client.HTTPConnection(host, timeout=60)
                done.wait(0.05)

        t0 = time.monotonic()
        prober = threading.Thread(target=probe)
        prober.start()
        threads = [threading.Thread(target=worker) for _ in range(args.threads)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        secs = time.monotonic() - t0
        done.set()
        prober.join()
        probe_ms.sort()
        bad = sum(n for k, n in outcomes.items() if k not in allowed)
        failed_total += bad
        latencies.sort()
        p50 = latencies[len(latencies) // 2]
        p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]
        counts = " ".join(f"{k}={outcomes[k]}" for k in sorted(outcomes, key=str))
        pq = (lambda q: probe_ms[min(len(probe_ms) - 1, int(len(probe_ms) * q))]) if probe_ms else (lambda q: float("nan"))
        print(f"UPLOADBURST round={rnd} secs={secs:.1f} {counts} unanswered_or_other={bad} "
              f"p50={p50:.2f}s p99={p99:.2f}s probe_n={len(probe_ms)} probe_p50={pq(0.5):.1f}ms "
              f"probe_p99={pq(0.99):.1f}ms probe_max={pq(1.0):.1f}ms", flush=True)
        for e, n in errors.most_common(5):
            print(f"  {n} x {e}", flush=True)
    verdict = "PASS" if failed_total == 0 else "FAIL"
    print(f"upload-burst.py: {verdict} ({failed_total} of {args.requests * args.rounds} requests "
          f"not answered 200/429/503)", flush=True)
    sys.exit(0 if failed_total == 0 else 1)


if __name__ == "__main__":
    main()
