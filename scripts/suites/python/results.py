"""One result line of an others'-suite run, from a JUnit XML report (pytest's --junitxml).

    python3 results.py --suite S --package P --server embedded|real --junit FILE [--exit-code N]
    python3 results.py --suite S --package P --server embedded|real --error "why it did not run"

Prints {"suite","package","server","passed","failed","skipped","failures":[...]} on one line;
"failures" holds "test name: first line of the reason". A report that is missing or unreadable,
or a run that ended without one (killed by a time-out), counts as one failure named after the
package, so a group that did not run never reads as a clean pass.
"""

import argparse
import json
import xml.etree.ElementTree as ET


def first_line(text):
    for line in (text or "").splitlines():
        line = line.strip()
        if line:
            return line[:300]
    return ""


def reason(element):
    """The most telling line of a failure: the exception line pytest ends its trace with."""
    message = element.get("message") or ""
    body = element.text or ""
    # pytest's message attribute is the exception's text; its first line names the error.
    line = first_line(message)
    rest = [ln.strip() for ln in message.splitlines() if ln.strip()][1:]
    if line and len(line) < 80 and rest:
        # "ApiException: (400)" says little; its next line ("Reason: ...") says why.
        parts = rest[0].split(" -+-+- ")  # websocket: status -+-+- headers -+-+- body
        why = f"{parts[0]} {parts[-1]}" if len(parts) > 2 else rest[0]
        line = f"{line} {why}"[:400]
    if not line:
        lines = [ln.strip() for ln in body.splitlines() if ln.strip().startswith("E ")]
        line = lines[0][1:].strip() if lines else first_line(body)
    return line


def from_junit(path):
    passed = failed = skipped = 0
    failures = []
    root = ET.parse(path).getroot()
    for case in root.iter("testcase"):
        cls = case.get("classname", "")
        name = f"{cls.rsplit('.', 1)[-1]}::{case.get('name')}" if cls else case.get("name")
        bad = case.find("failure")
        if bad is None:
            bad = case.find("error")
        if bad is not None:
            failed += 1
            failures.append(f"{name}: {reason(bad)}")
        elif case.find("skipped") is not None:
            skipped += 1
        else:
            passed += 1
    return passed, failed, skipped, failures


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--suite", required=True)
    ap.add_argument("--package", required=True)
    ap.add_argument("--server", required=True)
    ap.add_argument("--junit")
    ap.add_argument("--exit-code", type=int, default=0)
    ap.add_argument("--error")
    a = ap.parse_args()
    passed = failed = skipped = 0
    failures = []
    if a.error:
        failed, failures = 1, [f"{a.package}: {a.error}"]
    else:
        try:
            passed, failed, skipped, failures = from_junit(a.junit)
        except (OSError, ET.ParseError) as err:
            failed, failures = 1, [f"{a.package}: no test report ({first_line(str(err))})"]
        # pytest exits 0 (all passed), 1 (some failed) or 5 (none collected); anything else (a
        # time-out's 124, an interrupted or crashed run) means the report may be partial.
        if a.exit_code not in (0, 1, 5):
            failed += 1
            failures.append(f"{a.package}: the run ended with exit code {a.exit_code}")
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
