#!/usr/bin/env python3
"""Fails unless a PNG exists and shows a rendered window: enough distinct colours and no single
colour covering almost everything (a blank or black window fails). Standard library only."""
import struct
import sys
import zlib


def pixels(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise SystemExit(f"{path}: not a PNG")
    pos, idat, width, height, channels = 8, b"", 0, 0, 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
            channels = {2: 3, 6: 4}.get(colour)
            if depth != 8 or channels is None:
                raise SystemExit(f"{path}: expected 8-bit RGB(A), got depth {depth} colour type {colour}")
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            a = line[x - channels] if x >= channels else 0
            b = prev[x]
            c = prev[x - channels] if x >= channels else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, channels, rows


def main(path):
    width, height, channels, rows = pixels(path)
    counts = {}
    for row in rows[::4]:
        for x in range(0, width * channels, channels * 4):
            key = row[x:x + 3]
            counts[key] = counts.get(key, 0) + 1
    total = sum(counts.values())
    top = max(counts.values())
    print(f"{path}: {width}x{height}, {len(counts)} colours in the sample, most common covers {100 * top // total}%")
    if width < 320 or height < 200:
        raise SystemExit("the window is too small")
    if len(counts) < 20 or top > 0.97 * total:
        raise SystemExit("the screenshot looks blank: the window did not render")


if __name__ == "__main__":
    main(sys.argv[1])
