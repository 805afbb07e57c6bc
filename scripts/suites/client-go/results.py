"""One result line of an others'-suite run, from `go test -json` (test2json) events.

    python3 results.py --suite S --package P --server embedded|real --events FILE [--exit-code N]
    python3 results.py --suite S --package P --server embedded|real --error "why it did not run"

Counts the leaf tests (a test with subtests counts through its subtests) and prints
{"suite","package","server","passed","failed","skipped","failures":[...]} on one line, each
failure as "test name: first line of its reason" (its first `file_test.go:N: message` line). A
run that ended without a verdict for every test (a panic, a time-out) counts one failure more.
"""

import argparse
import json
import re

LOCATION = re.compile(r"^\s+\S+_test\.go:\d+: (.*)$")


def from_events(path):
    results = {}  # test -> pass|fail|skip
    order = []
    output = {}  # test -> [lines]
    started = set()
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.strip()
            if not line.startswith("{"):
                continue
            try:
                ev = json.loads(line)
            except ValueError:
                continue
            test = ev.get("Test")
            if not test:
                continue
            action = ev.get("Action")
            if action == "run":
                started.add(test)
                order.append(test)
            elif action == "output":
                output.setdefault(test, []).append(ev.get("Output", ""))
            elif action in ("pass", "fail", "skip"):
                results[test] = action
    # A subtest named "a/b" shows up as T/a/b with no T/a: a parent is any test another extends.
    parents = {p for p in started if any(t.startswith(p + "/") for t in started)}
    passed = failed = skipped = 0
    failures = []
    for test in order:
        if test in parents:
            continue
        verdict = results.get(test)
        if verdict == "pass":
            passed += 1
        elif verdict == "skip":
            skipped += 1
        else:
            failed += 1
            failures.append(f"{test}: {reason(output.get(test, []), verdict)}")
    # A parent that failed on its own (before or after its subtests) with every subtest passing.
    for test in order:
        if test in parents and results.get(test) == "fail":
            kids = [t for t in order if t.startswith(test + "/")]
            if all(results.get(k) in ("pass", "skip") for k in kids):
                failed += 1
                failures.append(f"{test}: {reason(output.get(test, []), 'fail')}")
    return passed, failed, skipped, failures


def reason(lines, verdict):
    for ln in lines:
        m = LOCATION.match(ln.rstrip("\n"))
        if m:
            return m.group(1).strip()[:300]
    for ln in lines:
        if "panic:" in ln:
            return ln.strip()[:300]
    return "no verdict (the test binary ended early)" if verdict is None else "failed"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--suite", required=True)
    ap.add_argument("--package", required=True)
    ap.add_argument("--server", required=True)
    ap.add_argument("--events")
    ap.add_argument("--exit-code", type=int, default=0)
    ap.add_argument("--error")
    a = ap.parse_args()
    passed = failed = skipped = 0
    failures = []
    if a.error:
        failed, failures = 1, [f"{a.package}: {a.error}"]
    else:
        try:
            passed, failed, skipped, failures = from_events(a.events)
        except OSError as err:
            failed, failures = 1, [f"{a.package}: no test events ({err})"]
        if passed + failed + skipped == 0:
            failed, failures = 1, [f"{a.package}: no test ran (exit code {a.exit_code})"]
        elif a.exit_code not in (0, 1) and failed == 0:
            failed += 1
            failures.append(f"{a.package}: the test binary ended with exit code {a.exit_code}")
    print(json.dumps({
        "suite": a.suite,
        "package": a.package,
        "server": a.server,
        "passed": passed,
        "failed": failed,
        "skipped": skipped,
        "failures": failures,
    }))


if __name__ == "__main__":
    main()
