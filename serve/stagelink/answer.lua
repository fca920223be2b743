-- One session's answer to question SEQ, counted once however often sent.
-- KEYS: NAME:answers:SEQ (PROC:SESSION -> choice), NAME:tally:SEQ (choice -> count)
-- ARGV: PROC:SESSION, choice, number of choices, ttl (s), channel, PROC, SEQ
local n = tonumber(ARGV[3])
local c = tonumber(ARGV[2])
if not n or n < 1 or n > 64 or not c or c < 0 or c >= n or c ~= math.floor(c) then
  return redis.error_reply('bad answer')
end
if not string.match(ARGV[7], '^%d+$') or not string.match(ARGV[6], '^%x+$') then
  return redis.error_reply('bad question or process')
end
c = tostring(c)
local old = redis.call('HGET', KEYS[1], ARGV[1])
if old ~= c then
  redis.call('HSET', KEYS[1], ARGV[1], c)
  if old then redis.call('HINCRBY', KEYS[2], old, -1) end
  redis.call('HINCRBY', KEYS[2], c, 1)
end
redis.call('EXPIRE', KEYS[1], ARGV[4])
redis.call('EXPIRE', KEYS[2], ARGV[4])
local counts = {}
for i = 0, n - 1 do
  counts[i + 1] = tonumber(redis.call('HGET', KEYS[2], tostring(i)) or '0')
end
redis.call('PUBLISH', ARGV[5], '{"v":1,"kind":"tally","proc":"' .. ARGV[6] ..
  '","tally":{"seq":' .. ARGV[7] .. ',"counts":[' .. table.concat(counts, ',') .. ']}}')
return counts
