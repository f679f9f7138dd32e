-- wrk script: POST random 8-coin Welter positions (squares < 2^20), so most requests miss the
-- cache. Set FIXED=1 in the environment to send one fixed position (every request a cache hit).
--
-- The requests are built once, in `init` (a pool of 8,192 random positions per wrk thread), and
-- `request` only hands out the next one: building a random JSON body in Lua for every request
-- cost the client more than bare axum costs the server, so one client core could not saturate
-- one server core and the ratio flattered the slower server (scripts/hotpath-bench.sh prints how
-- busy the server's CPUs were).
local fixed = os.getenv("FIXED") == "1"
local POOL = 8192
local pool, nxt = {}, 0
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"

init = function(args)
  math.randomseed(os.time() + (tonumber(tostring({}):match("0x(%x+)"), 16) or 0))
  for i = 1, POOL do
    local body
    if fixed then
      body = '{"position":[1,3,7,8,11,19,23,42]}'
    else
      local seen, coins = {}, {}
      while #coins < 8 do
        local x = math.random(0, 1048575)
        if not seen[x] then seen[x] = true; coins[#coins + 1] = x end
      end
      body = '{"position":[' .. table.concat(coins, ",") .. ']}'
    end
    pool[i] = wrk.format(nil, nil, nil, body)
  end
end

request = function()
  nxt = nxt % POOL + 1
  return pool[nxt]
end

done = dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "./") .. "wrk-result.lua")
