#!/usr/bin/env bash
# interleaved before/after runs of the hot-key decide benchmark, 1 thread, 3 forks each
set -u
OPTS=(-f 3 -wi 2 -w 1s -i 3 -r 1s -t 1 -jvmArgsAppend "-Xms1g -Xmx1g")
for round in 1 2 3; do
  for cfg in "before:/tmp/top-before/windowpane-bench/target/benchmarks.jar:WINDOWPANE_PANES" \
             "after:/tmp/top-after/windowpane-bench/target/benchmarks.jar:WINDOWPANE_PANES" \
             "topkeys:/tmp/top-after/windowpane-bench/target/benchmarks.jar:WINDOWPANE_PANES_TOP_KEYS"; do
    IFS=: read -r name jar impl <<< "$cfg"
    echo "$(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg) $name round $round" >> /tmp/top-jmh2/load.log
    java -jar "$jar" 'LocalDecideBenchmark.decide$' -p impl="$impl" -p scenario=ALLOWED "${OPTS[@]}" \
        -rf json -rff "/tmp/top-jmh2/$name-$round.json" > "/tmp/top-jmh2/$name-$round.txt" 2>&1
  done
done
echo finished-t1 >> /tmp/top-jmh2/load.log
# one round at 2 threads
OPTS2=(-f 3 -wi 2 -w 1s -i 3 -r 1s -t 2 -jvmArgsAppend "-Xms1g -Xmx1g")
for cfg in "before:/tmp/top-before/windowpane-bench/target/benchmarks.jar:WINDOWPANE_PANES" \
           "after:/tmp/top-after/windowpane-bench/target/benchmarks.jar:WINDOWPANE_PANES" \
           "topkeys:/tmp/top-after/windowpane-bench/target/benchmarks.jar:WINDOWPANE_PANES_TOP_KEYS"; do
  IFS=: read -r name jar impl <<< "$cfg"
  echo "$(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg) $name t2" >> /tmp/top-jmh2/load.log
  java -jar "$jar" 'LocalDecideBenchmark.decide$' -p impl="$impl" -p scenario=ALLOWED "${OPTS2[@]}" \
      -rf json -rff "/tmp/top-jmh2/$name-t2.json" > "/tmp/top-jmh2/$name-t2.txt" 2>&1
done
echo finished-t2 >> /tmp/top-jmh2/load.log
