#!lua name=windowpane
--[[
  windowpane function library, version 3 (every stored layout format 1).

  Source. The library is one text, assembled from the files of this directory in name order
  (library.txt lists them; cat *.lua gives the same text): 01 this header, 02 time and
  arguments, 03 panes, 04 weighted and 05 log windows, 06 decide (windows from KEYS and ARGV,
  the hot path, the counter and limiter functions), 07 statistics, 08 batches and groups,
  09 replay, release and event time, 10 locks, 11 top keys, 12 the exports. The Java engine
  assembles it when it loads (io.windowpane.redis.internal.FunctionLibrary).

  The protocol (function names, KEYS, ARGV, replies, error strings) is documented in
  docs/redis-protocol.md; any Redis client can call these functions with FCALL and get the
  answers the Java engine gets. Loaded with FUNCTION LOAD on Redis 7+; on Redis 6 the engine
  runs this same text through EVALSHA (first line removed), with the function name as the first
  ARGV (see the dispatch at the end).

  Design note. Every operation is one call of one function: it reads the window's state, decides
  and writes in one atomic step, so there is no lock and no lost update. Time is the server's
  (TIME) unless the caller passes its own in ARGV[1]. Numbers are Lua doubles: integers are exact
  up to 2^53, so times must stay within +-2^52 ms and counts below 2^53. Numbers go to redis.call
  as Lua numbers: Redis writes integers below 10^17 in plain digits (%.17g on Redis 6, fpconv on
  7), never through Lua's own 14-digit tostring.

  Layouts, all keys of one logical key sharing the caller's hash tag:
    panes     one hash: v (format), h (newest pane written), o (sum of the live panes
              older than h) and one field per live pane, named by its ring slot (pane mod P).
              An adaptive window's key may run at k times its resolution (P / k panes; see
              "adaptive windows" in 02): then v is '1x<k>' and every pane number, slot and
              expiry above is at that resolution; t holds the time of its last step.
              Only writes move h; the write that moves it zeroes the slots of the panes that
              left. The expiry follows from h (see "panes" below): nothing stores it.
    weighted  one hash: v, w (index of the newest fixed window written), a (its
              count), b (the previous window's count); it expires at (w + 2) W.
    log       a sorted set of accepted events (score = time, member = "seq:count", unique) and
              a meta hash: v, e, s (sequence), c (sum of the set's counts), o (oldest score).
              Entries leaving the window are removed by the next call.
    histogram one hash: v, e, h (newest pane) and per stored pane, by ring slot S
              (pane mod P): S:n (count), S:s and S:e (compensated sum: high part and its
              error term), S:min, S:max, S:<bucket key> (count per occupied bucket) and S:k
              (the slot's bucket keys, comma-separated); and a window aggregate, a second
              hash (the caller's key + ":a"): per bucket key, its count summed over every
              pane stored in the first hash. A pane leaving the window has all its fields
              removed (HDEL, named from S:k) and its counts subtracted from the aggregate by
              the call that moves h past it. The first hash's v stands for both; it is
              '1x<k>' for a key at k times its resolution, t the time of its last step.
    lock      a hash: v, t (the holder's token), e (logical expiry, ms); and the lock's fencing
              counter, a string (the lock's key + ":f") that every acquisition increments and
              that never expires, so tokens keep rising across holders and expiry.
    exact     a sorted set of values (score = time, member = "seq:<value %.17g>", unique) and a
              meta hash: v, e, s (sequence), c (members held). Entries leaving the window are
              removed by the next record.
    sketch    (top keys) per window, not per key, under a hash tag of its
              own: a sorted set and a hash; see "top keys" below.
    marker    (replays) a hash: v, e (logical expiry, ms), named after the first
              window key + ":y:" + the replay id; its presence makes a repeated replay a no-op.
              Releases keep the same hash under the first window key + ":g:" +
              the release id.
  Every key expires by itself: PEXPIRE to the window's logical expiry e, which lies within
  W + r of the last recorded event. Denied requests and reads never extend it. A key whose e has
  passed is treated as absent. Callers passing their own time may add a grace period to the
  physical TTL ("<ms>+<grace>"): answers follow e, memory is returned up to grace ms later.

  Cost. Each redis.call costs about 0.5-0.7 us on top of its command (Redis builds a client call
  and converts the reply), so the functions keep calls few: a window already at its current pane
  (the common case) is decided by one HMGET (five fields for panes, four weighted) and one
  HINCRBY after TIME, without building window objects (the "hot path"); a window that moves on
  takes the same road and writes its new pane's count, head and older sum (and zeroed slots) in
  one HSET instead, reading nothing more when it moves one pane (panes) or one fixed window
  (weighted); PEXPIRE runs at most every other pane (panes), once per fixed window (weighted)
  or per millisecond (log). The arguments of a window spec and of a
  limit are checked once per library load (a cache by their text); a denial writes nothing and
  reads no pane when the older panes cannot free enough (a burst that filled the limit in the
  current pane), else all the panes it may need in one HMGET (up to 16); a log write sets only
  the meta fields that change. wp_take answers an allowed decision with a bare integer (an
  array reply costs ~0.5 us), a single limit on the hot path builds no Lua table, and a denial
  reads the panes
  (the log's entries) oldest first in small pieces, since a denied stream usually needs only
  the oldest one or two to compute the exact retry-after (each HMGET field costs ~0.25 us).
  Statistics follow the same rule: a histogram record at the current pane is one HMGET (head,
  the pane's scalars, its bucket list and the buckets the values fall in) and one HSET, for a
  batch of any size up to a thousand distinct buckets (beyond, both go in chunks), plus the
  aggregate's update: one HINCRBY when the values fall in one bucket, else one HMGET and one
  HSET. A record that moves the head adds one HMGET of the leaving panes' bucket counts (and
  one of their bucket lists when more than one leaves), one HDEL of their fields, the
  aggregate's HMGET and HSET (and HDEL when a bucket empties) and the two PEXPIREs. A summary
  is one HMGET (head and every slot's five scalars) and one HGETALL of the aggregate: it costs
  O(P + occupied buckets in the window), not O(P x occupied buckets per pane); when stored
  panes have already left (the key was idle since) two HMGETs more. An exact record is HMGET,
  ZREMRANGEBYSCORE, ZADD and HSET; a summary HMGET and ZRANGEBYSCORE. Measured figures:
  docs/benchmarks.md.
]]
