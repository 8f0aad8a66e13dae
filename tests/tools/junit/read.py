"""Reads a JUnit XML report with junitparser, a JUnit parser CI report tools
use, and prints what a test-report view would show, as JSON: each suite with
its counts and properties, each case with its result and message."""
import json
import sys

from junitparser import Error, Failure, JUnitXml, Skipped, TestSuite

xml = JUnitXml.fromfile(sys.argv[1])
suites = [xml] if isinstance(xml, TestSuite) else list(xml)
out = []
for suite in suites:
    cases = []
    for case in suite:
        result, message = "passed", None
        for r in case.result:
            if isinstance(r, Failure):
                result, message = "failure", r.message
            elif isinstance(r, Error):
                result, message = "error", r.message
            elif isinstance(r, Skipped):
                result, message = "skipped", r.message
        cases.append({"classname": case.classname, "name": case.name, "result": result, "message": message})
    out.append({
        "name": suite.name,
        "tests": suite.tests,
        "failures": suite.failures,
        "errors": suite.errors,
        "skipped": suite.skipped,
        "properties": {p.name: p.value for p in suite.properties()},
        "cases": cases,
    })
json.dump(out, sys.stdout)
