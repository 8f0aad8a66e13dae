"""Reads a JUnit XML report with junit2html, which renders reports as HTML
pages, and prints each case's id and outcome as JSON (an error reads as a
failure there), after rendering the page it would show: a report it cannot
render fails here."""
import json
import sys

from junit2htmlreport import parser

report = parser.Junit(filename=sys.argv[1])
report.html()
out = []
for suite in report:
    for case in suite.all():
        out.append({
            "suite": suite.name,
            "classname": case.testclass.name,
            "name": case.name,
            "result": str(case.outcome()),
            "message": case.failure_msg or case.skipped_msg,
        })
json.dump(out, sys.stdout)
