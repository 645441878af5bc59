#!/usr/bin/env python3
"""Runs the local-engine benchmarks behind docs/benchmarks.md, one JMH invocation per configuration.

Usage, from the repository root (about 25 minutes on 2 cores):

    mvn -B -q -DskipTests package -pl windowpane-bench -am
    python3 windowpane-bench/run-local-benchmarks.py decide acquire counted clock

Each configuration (benchmark x implementation x scenario x threads) runs as

    java -jar windowpane-bench/target/benchmarks.jar 'LocalDecideBenchmark.decide$' \
        -p impl=IMPL -p scenario=SCENARIO -t THREADS -f 2 -wi 3 -w 1s -i 5 -r 1s -prof gc \
        -jvmArgsAppend "-Xms2g -Xmx2g -XX:+AlwaysPreTouch" -rf json -rff ...

and its output is appended, unchanged, to windowpane-bench/results/NAME.txt (and NAME.json);
set WINDOWPANE_BENCH_RESULTS to write elsewhere, and WINDOWPANE_BENCH_JAR to run a copy of the
jar that no build in a shared work tree can overwrite during the run (the published figures
were run from a copy built from a clean `git archive` of one commit).

Why a gate: on a shared 2-core machine a concurrent build or test run (another JVM at 100% of a
core) halves a 2-thread figure and skews a 1-thread one. So a thread samples /proc every second
and notes every other process that used more than 5% of a CPU. A configuration starts after 8
quiet seconds (or after 3 minutes regardless, which results/runs.log then says), and if another
process used CPU while it ran, it is run again, up to 3 attempts; results/runs.log records every
kept and discarded attempt and why. The gate chooses which attempt is kept, never changes one.

`stats` (not in the default set; windowpane-bench/run-stats-benchmarks.sh runs it) runs
StatsBenchmark: record and request, for the histogram window at 60 and 12 panes and the raw
array at populations 10,000 and 1,000,000, and windowpane's exact window at 10,000, threads 2
then 1, into results/stats-local-DATE-t2 and -t1. With WINDOWPANE_BENCH_SMOKE=1 every
configuration runs once, briefly (-f 1 -wi 1 -w 1s -i 1 -r 1s), without the gate: a check that
the benchmarks run, not a figure.
"""
import json
import os
import subprocess
import sys
import threading
import time

JAR = os.environ.get('WINDOWPANE_BENCH_JAR', 'windowpane-bench/target/benchmarks.jar')
OUT = os.environ.get('WINDOWPANE_BENCH_RESULTS', 'windowpane-bench/results')
JVM = '-Xms2g -Xmx2g -XX:+AlwaysPreTouch'
IMPLS = ('WINDOWPANE_PANES WINDOWPANE_WEIGHTED WINDOWPANE_LOG SENTINEL RESILIENCE4J BUCKET4J '
         'GUAVA NAIVE_DEQUE LONG_ADDER').split()
SCENARIOS = ('ALLOWED', 'DENIED')
FIGURE = ['-f', '2', '-wi', '3', '-w', '1s', '-i', '5', '-r', '1s', '-prof', 'gc']
CHECK = ['-f', '1', '-wi', '2', '-w', '1s', '-i', '3', '-r', '1s']
SMOKE = os.environ.get('WINDOWPANE_BENCH_SMOKE', '0') == '1'
if SMOKE:
    FIGURE = ['-f', '1', '-wi', '1', '-w', '1s', '-i', '1', '-r', '1s', '-prof', 'gc']
    CHECK = FIGURE[:-2]
# StatsBenchmark configurations: (impl, panes, population); panes matter to the histogram only.
STATS = ([('WINDOWPANE_HISTOGRAM', '60', p) for p in ('10000', '1000000')]
         + [('WINDOWPANE_HISTOGRAM', '12', p) for p in ('10000', '1000000')]
         + [('RAW_ARRAY', '60', p) for p in ('10000', '1000000')]
         + [('WINDOWPANE_EXACT', '60', '10000')])
STAMP = time.strftime('%Y%m%d-%H%M%S', time.gmtime())

busy = []  # (time, percent of a CPU, command line) of other processes
failures = []  # configurations whose JMH run failed
ours = set()  # pids seen running the benchmark jar: their exit is not someone else's load


def processes():
    found = {}
    for pid in os.listdir('/proc'):
        if not pid.isdigit():
            continue
        try:
            fields = open(f'/proc/{pid}/stat').read().rsplit(')', 1)[1].split()
            cmd = open(f'/proc/{pid}/cmdline', 'rb').read().replace(b'\0', b' ').decode(errors='replace')
        except OSError:
            continue
        found[pid] = (int(fields[11]) + int(fields[12]), cmd)
    return found


def monitor():
    hz = os.sysconf('SC_CLK_TCK')
    me = str(os.getpid())
    before = processes()
    while True:
        time.sleep(1)
        now = processes()
        for pid, (ticks, cmd) in now.items():
            if 'ForkedMain' in cmd or 'benchmarks.jar' in cmd:
                ours.add(pid)
            if pid == me or pid in ours or pid not in before:
                continue
            percent = (ticks - before[pid][0]) / hz * 100
            if percent > 5:
                busy.append((time.time(), percent, cmd[:100] or f'pid {pid} (exited)'))
        before = now


def say(log, line):
    line = time.strftime('%H:%M:%S ') + line
    print(line, flush=True)
    log.write(line + '\n')
    log.flush()


def quiet_for(seconds):
    return not [b for b in busy if b[0] > time.time() - seconds]


def run(log, name, args):
    described = ' '.join(args)
    for attempt in range(1, 4):
        waited = time.time()
        while not SMOKE and not quiet_for(8) and time.time() - waited < 180:
            time.sleep(1)
        quiet = quiet_for(8)
        result = f'/tmp/windowpane-bench-{os.getpid()}.json'
        start = time.time()
        done = subprocess.run(['java', '-jar', JAR] + args
                              + ['-jvmArgsAppend', JVM, '-rf', 'json', '-rff', result],
                              capture_output=True, text=True)
        end = time.time()
        if done.returncode != 0:
            failures.append(described)
            say(log, f'FAILED (exit {done.returncode}) [{described}]')
            sys.stderr.write(done.stdout[-4000:] + done.stderr[-4000:])
            return
        others = [b for b in busy if start - 1 <= b[0] <= end + 1]
        if others and attempt < 3 and not SMOKE:
            names = sorted({b[2] for b in others})[:2]
            say(log, f'discarded attempt {attempt} of [{described}]: other processes used CPU '
                     f'in {len(others)} one-second samples: {names}')
            continue
        notes = (f' (KEPT DESPITE {len(others)} busy samples)' if others else '') \
            + ('' if quiet else ' (no quiet period before it)') \
            + (' (SMOKE: a check, not a figure)' if SMOKE else '')
        say(log, f'kept attempt {attempt} of [{described}] {end - start:.0f} s{notes}')
        with open(f'{OUT}/{name}.txt', 'a') as text:
            text.write(done.stdout)
        path = f'{OUT}/{name}.json'
        earlier = json.load(open(path)) if os.path.exists(path) else []
        with open(path, 'w') as out:
            json.dump(earlier + json.load(open(result)), out, indent=2)
        return


def main(which):
    os.makedirs(OUT, exist_ok=True)
    threading.Thread(target=monitor, daemon=True).start()
    time.sleep(2)
    with open(f'{OUT}/runs.log', 'a') as log:
        for t in ('2', '1'):
            if 'decide' in which:
                for impl in IMPLS:
                    for scenario in SCENARIOS:
                        run(log, f'local-t{t}', ['LocalDecideBenchmark.decide$', '-p', f'impl={impl}',
                                                 '-p', f'scenario={scenario}', '-t', t] + FIGURE)
        for t in ('2', '1'):
            if 'acquire' in which:
                for method in ('tryConsume', 'tryAcquire'):
                    for scenario in SCENARIOS:
                        run(log, f'acquire-t{t}', [f'LocalAcquireBenchmark.{method}$',
                                                   '-p', f'scenario={scenario}', '-t', t] + FIGURE)
            if 'counted' in which:
                for impl in IMPLS:
                    for scenario in SCENARIOS:
                        run(log, f'local-outcomes-t{t}', ['LocalDecideBenchmark.decideCounted',
                                                          '-p', f'impl={impl}', '-p', f'scenario={scenario}',
                                                          '-t', t] + CHECK)
        for t in ('2', '1'):
            if 'stats' in which:
                for method in ('record', 'request'):
                    for impl, panes, population in STATS:
                        run(log, f'stats-local-{STAMP}-t{t}',
                            [f'StatsBenchmark.{method}$', '-p', f'impl={impl}', '-p', f'panes={panes}',
                             '-p', f'population={population}', '-t', t] + FIGURE)
        if 'clock' in which:
            run(log, 'clock', ['ClockBenchmark', '-t', '1', '-f', '1', '-wi', '3', '-w', '1s', '-i', '5', '-r', '1s'])
        say(log, f'done, {len(failures)} failed' if failures else 'done')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:] or ['decide', 'acquire', 'counted', 'clock']))
