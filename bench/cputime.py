#!/usr/bin/env python3
"""Time Go benchmarks in CPU time, for a machine that other work is using.

Runs a benchmark binary (built with `go test -c`) twice per round, with -test.benchtime N1x and
N2x and GOMAXPROCS=1, and reports (cpu(N2) - cpu(N1)) / (N2 - N1) / PER in nanoseconds, where cpu
is the child's user + system time from getrusage. Set-up cancels out, and time the process spends
waiting for a processor does not count. Several binaries (variants) run alternately, round after
round; the first one is the base of the ratios printed. See docs/performance.md.

usage: bench/cputime.py ROUNDS PER N1 N2 BENCH-REGEXP LABEL=BINARY ...
e.g.:  go test -c -o /tmp/new.test ./bitstream
       bench/cputime.py 5 1e6 5 25 '^BenchmarkBitprotoRefInt32x1M_MixedDecode$' new=/tmp/new.test
"""
import os
import resource
import statistics
import subprocess
import sys


def cpu(binary, bench, n, env):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([binary, '-test.run', '^$', '-test.bench', bench, '-test.benchtime', f'{n}x'],
                   env=env, stdout=subprocess.DEVNULL, check=True)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)


def main():
    if len(sys.argv) < 7:
        sys.exit(__doc__)
    rounds, per = int(sys.argv[1]), float(sys.argv[2])
    n1, n2, bench = int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
    variants = [a.split('=', 1) for a in sys.argv[6:]]
    env = dict(os.environ, GOMAXPROCS='1')
    res = {label: [] for label, _ in variants}
    for _ in range(rounds):
        for label, binary in variants:
            a, b = cpu(binary, bench, n1, env), cpu(binary, bench, n2, env)
            res[label].append((b - a) / (n2 - n1) / per * 1e9)
    out = [f'{label} {statistics.median(v):.2f} ns [{min(v):.2f}-{max(v):.2f}]' for label, v in res.items()]
    base = variants[0][0]
    for label, _ in variants[1:]:
        r = [x / y for x, y in zip(res[base], res[label])]
        out.append(f'{base}/{label} {statistics.median(r):.2f}')
    print(bench, '  '.join(out))


if __name__ == '__main__':
    main()
