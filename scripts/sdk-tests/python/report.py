"""Summarises a pytest JUnit XML run of the azure-cosmos tests.

Usage: report.py JUNIT_XML --baseline FILE --expected-failures FILE
                 [--tsv FILE] [--update-baseline] [--selected-files FILE]

Prints one row per test file (passed, failed, skipped, seconds), then the
failing tests with the reason expected-failures.md gives for each, and
compares the run with the baseline (the test ids expected to pass):

  exit 0  every baseline test that ran passed
  exit 1  a baseline test failed, errored, was skipped or did not run
          (a regression)
  exit 2  the XML is missing or holds no test at all

With --selected-files only the baseline tests of those files are judged
(a partial run). With --update-baseline the baseline is rewritten from
this run's passing tests. Standard library only.
"""

import argparse
import os
import re
import sys
import xml.etree.ElementTree as ET


def test_id(case):
    """pytest's node id (file::Class::name) from an xunit1 testcase."""
    file = case.get("file") or ""
    classname = case.get("classname") or ""
    name = case.get("name") or ""
    module = file[:-3].replace("/", ".") if file.endswith(".py") else ""
    rest = classname[len(module):].lstrip(".") if module and classname.startswith(module) else ""
    if not file:
        # xunit2 has no file attribute: guess it from the dotted classname.
        parts = classname.split(".")
        cls = [p for p in parts if p[:1].isupper()]
        mods = [p for p in parts if not p[:1].isupper()]
        file = "/".join(mods) + ".py"
        rest = "::".join(cls)
    return "::".join(x for x in (file, rest.replace(".", "::"), name) if x)


def outcome(case):
    """passed, failed, error or skipped, plus the first line of the message."""
    for tag in ("failure", "error", "skipped"):
        el = case.find(tag)
        if el is not None:
            msg = (el.get("message") or el.text or "").strip().splitlines()
            first = msg[0] if msg else ""
            kind = {"failure": "failed", "error": "error", "skipped": "skipped"}[tag]
            return kind, first
    return "passed", ""


def read_reasons(path):
    """Rows `| test id or file::* | reason |` of expected-failures.md."""
    reasons = []
    if not os.path.exists(path):
        return reasons
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"^\|\s*`?([^|`]+?)`?\s*\|\s*(.+?)\s*\|\s*$", line)
            if not m or m.group(1) in ("Test", "---") or set(m.group(1)) <= set("-: "):
                continue
            reasons.append((m.group(1), m.group(2)))
    return reasons


def reason_for(tid, reasons):
    """The reason of the first row whose id is tid, or whose pattern ending
    in * is a prefix of it."""
    for key, why in reasons:
        if key == tid or (key.endswith("*") and tid.startswith(key[:-1])):
            return why
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("xml")
    ap.add_argument("--baseline", required=True)
    ap.add_argument("--expected-failures", required=True)
    ap.add_argument("--tsv")
    ap.add_argument("--update-baseline", action="store_true")
    ap.add_argument("--selected-files")
    args = ap.parse_args()

    if not os.path.exists(args.xml):
        print(f"report: no JUnit XML at {args.xml}: the tests did not run", file=sys.stderr)
        return 2
    try:
        root = ET.parse(args.xml).getroot()
    except ET.ParseError as e:
        print(f"report: {args.xml}: {e}", file=sys.stderr)
        return 2

    results = {}  # id -> (outcome, seconds, message)
    for case in root.iter("testcase"):
        tid = test_id(case)
        kind, msg = outcome(case)
        secs = float(case.get("time") or 0)
        prev = results.get(tid)
        # A test that passed but whose teardown errored has two entries.
        if prev is not None and prev[0] in ("failed", "error"):
            continue
        if prev is not None:
            secs += prev[1]
        results[tid] = (kind, secs, msg)
    if not results:
        print(f"report: {args.xml} holds no test", file=sys.stderr)
        return 2

    files = {}
    for tid, (kind, secs, _) in results.items():
        f = files.setdefault(tid.split("::", 1)[0], {"passed": 0, "failed": 0, "skipped": 0, "secs": 0.0})
        f["failed" if kind == "error" else kind] += 1
        f["secs"] += secs

    w = max(len(f) for f in files) if files else 4
    print()
    print(f"{'file':<{w}}  {'passed':>6}  {'failed':>6}  {'skipped':>7}  {'seconds':>7}")
    tot = {"passed": 0, "failed": 0, "skipped": 0, "secs": 0.0}
    for name in sorted(files):
        f = files[name]
        for k in tot:
            tot[k] += f[k]
        print(f"{name:<{w}}  {f['passed']:>6}  {f['failed']:>6}  {f['skipped']:>7}  {f['secs']:>7.1f}")
    print(f"{'total':<{w}}  {tot['passed']:>6}  {tot['failed']:>6}  {tot['skipped']:>7}  {tot['secs']:>7.1f}")

    reasons = read_reasons(args.expected_failures)
    failing = sorted(t for t, r in results.items() if r[0] in ("failed", "error"))
    if failing:
        print("\nfailing tests:")
        for tid in failing:
            why = reason_for(tid, reasons)
            if why is None:
                why = "NO REASON in expected-failures.md: " + results[tid][2][:200]
            print(f"  FAIL {tid}\n       {why}")

    if args.tsv:
        with open(args.tsv, "w", encoding="utf-8") as out:
            for tid in sorted(results):
                kind, secs, msg = results[tid]
                out.write(f"{tid}\t{kind}\t{secs:.2f}\t{msg[:300]}\n".replace("\r", " "))

    passing = sorted(t for t, r in results.items() if r[0] == "passed")
    if args.update_baseline:
        with open(args.baseline, "w", encoding="utf-8") as out:
            out.write("# azure-cosmos tests (pytest node ids) expected to PASS against cosmos-emulator.\n")
            out.write("# scripts/sdk-tests/python/run.sh fails when one of them does not pass.\n")
            out.write("# Regenerate with: scripts/sdk-tests/python/run.sh --full --update-baseline\n")
            for tid in passing:
                out.write(tid + "\n")
        print(f"\nreport: wrote {len(passing)} passing tests to {args.baseline}")
        return 0

    baseline = []
    with open(args.baseline, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#"):
                baseline.append(line)
    if args.selected_files:
        with open(args.selected_files, encoding="utf-8") as f:
            sel = {l.strip() for l in f if l.strip()}
        baseline = [t for t in baseline if t.split("::", 1)[0] in sel]

    regressions = [t for t in baseline if results.get(t, ("missing",))[0] != "passed"]
    new = [t for t in passing if t not in set(baseline)]
    if new:
        print(f"\nreport: {len(new)} tests pass that are not in the baseline (run --full --update-baseline to add them):")
        for t in new:
            print(f"  NEW PASS {t}")
    unexplained = [t for t in failing if reason_for(t, reasons) is None]
    if unexplained:
        print(f"\nreport: WARNING: {len(unexplained)} failing tests have no reason in expected-failures.md")
    print()
    print(f"report: {len(baseline)} baseline tests judged")
    print(f"python: {tot['passed']} passed, {tot['failed']} failed, {tot['skipped']} skipped")
    if regressions:
        print(f"report: {len(regressions)} REGRESSIONS (baseline tests that did not pass):")
        for t in regressions:
            kind, _, msg = results.get(t, ("did not run", 0, ""))
            print(f"  {kind.upper()} {t} {msg[:200]}")
        return 1
    print("report: no regression against the baseline")
    return 0


if __name__ == "__main__":
    sys.exit(main())
