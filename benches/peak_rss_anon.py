#!/usr/bin/env python3
"""Runs a command and prints the peak RssAnon (anonymous resident memory;
memory-mapped and page-cache file pages do not count) seen by polling
/proc/<pid>/status every millisecond, in MB."""
import subprocess
import sys
import time


def rss_anon_kb(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("RssAnon:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL)
peak = 0
while p.poll() is None:
    v = rss_anon_kb(p.pid)
    if v is not None:
        peak = max(peak, v)
    time.sleep(0.001)
print(f"{peak / 1024:.1f}")
sys.exit(p.returncode)
