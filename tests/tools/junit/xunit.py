"""Reads a JUnit XML report with xunitparser, a reader CI tools build on,
and prints what it found as JSON: each case's id and result. xunitparser
merges every suite into one, refuses a property name twice and checks the
root's counts against the cases, so a report it reads is consistent."""
import json
import sys

import xunitparser

suite, result = xunitparser.parse(open(sys.argv[1], encoding="utf-8"))
cases = []
for case in suite:
    cases.append({"classname": case.classname, "name": case.methodname, "result": case.result})
json.dump({
    "tests": result.testsRun,
    "failures": len(result.failures),
    "errors": len(result.errors),
    "skipped": len(result.skipped),
    "properties": suite.properties,
    "cases": cases,
}, sys.stdout)
