#!/usr/bin/env python3
"""The Python baseline: the same zot.jsonl aggregation as perfreport's zot
parser (requests, blob/cache/image write bytes, manifest writes, reads,
counts by message), one json.loads per line, as the predecessor did."""
import json
import sys


def main(path):
    agg = {"requests": 0, "blob_write_bytes": 0, "cache_write_bytes": 0, "image_write_bytes": 0,
           "manifest_writes": 0, "writes_unsized": 0, "reads": 0, "read_bytes": 0, "not_json": 0}
    by_message = {}
    with open(path, "rb") as f:
        for line in f:
            if not line.lstrip().startswith(b"{"):
                agg["not_json"] += 1
                continue
            try:
                o = json.loads(line)
            except ValueError:
                continue
            msg = o.get("message")
            if msg != "HTTP API":
                by_message[msg] = by_message.get(msg, 0) + 1
                continue
            agg["requests"] += 1
            method, path_q, status = o.get("method"), o.get("path", ""), o.get("statusCode", 0)
            path_ = path_q.split("?")[0]
            rest = path_[4:] if path_.startswith("/v2/") else ""
            ok = 200 <= status < 300
            cl = (o.get("headers") or {}).get("Content-Length")
            size = int(cl[0]) if cl else None
            if "/blobs/" in rest:
                name, tail = rest.split("/blobs/", 1)
                if tail.startswith("uploads") and method in ("PATCH", "PUT") and ok:
                    if size is None:
                        agg["writes_unsized"] += 1
                    else:
                        agg["blob_write_bytes"] += size
                        agg["cache_write_bytes" if "cache" in name else "image_write_bytes"] += size
                elif method in ("GET", "HEAD") and not tail.startswith("uploads"):
                    agg["reads"] += 1
                    if method == "GET" and status == 200:
                        agg["read_bytes"] += o.get("bodySize", 0)
            elif "/manifests/" in rest:
                name, ref = rest.split("/manifests/", 1)
                if method == "PUT" and ok:
                    agg["manifest_writes"] += 1
                    if size is not None:
                        agg["cache_write_bytes" if "cache" in name or "cache" in ref else "image_write_bytes"] += size
                elif method in ("GET", "HEAD"):
                    agg["reads"] += 1
                    if method == "GET" and status == 200:
                        agg["read_bytes"] += o.get("bodySize", 0)
    agg["by_message"] = by_message
    json.dump(agg, sys.stdout)
    print()


if __name__ == "__main__":
    main(sys.argv[1])
