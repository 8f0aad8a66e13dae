"""Draws an SVG chart with rsvg-convert and says, as JSON, which legend
boxes have ink on or past their right edge: the box is the rect stroked
#B4B4B4 (charts::LEGEND_BORDER), and any dark pixel within 3 px of its
right border or past it, within its rows, is a label that ran out of it
(the border itself is lighter). Python's own zlib decodes the PNG (RGB or RGBA), so
nothing beside rsvg-convert is needed."""
import json
import re
import struct
import subprocess
import sys
import zlib


def png_rgba(data):
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, width, height = 8, b"", 0, 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and colour in (2, 6), "rsvg-convert writes 8-bit RGB or RGBA"
            bpp = 4 if colour == 6 else 3
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw, stride, rows = zlib.decompress(idat), width * bpp, []
    prev = bytearray(stride)
    for y in range(height):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return width, height, bpp, rows


svg = sys.argv[1]
png = subprocess.run(["rsvg-convert", svg], check=True, capture_output=True).stdout
width, height, bpp, rows = png_rgba(png)
text = open(svg, encoding="utf-8").read()
out = []
for m in re.finditer(r'<rect x="(\d+)" y="(\d+)" width="(\d+)" height="(\d+)"[^>]*stroke="#B4B4B4"', text):
    x, y, w, h = map(int, m.groups())
    right = x + w
    for yy in range(y + 2, min(y + h - 1, height)):
        # A label must end clear of the border: ink on it or past it counts.
        for xx in range(right - 3, min(right + 8, width)):
            r, g, b = rows[yy][xx * bpp:xx * bpp + 3]
            a = rows[yy][xx * bpp + 3] if bpp == 4 else 255
            if a > 0 and (r + g + b) / 3 < 140:
                out.append({"box": [x, y, w, h], "ink_at": [xx, yy]})
                break
        else:
            continue
        break
json.dump({"boxes": len(re.findall(r'stroke="#B4B4B4"', text)), "past": out}, sys.stdout)
