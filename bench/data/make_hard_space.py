#!/usr/bin/env python3
"""Writes synthetic_hard_space.json: a made-up recording of a 2D stencil
(radius 4, 7001 x 7001 floats) on an H100-like GPU whose optimum is narrow:
a few configurations of thousands lie within 5 % of it, as in the fdtd's
grids (10-21 of 1232), where strategies separate. The real recordings are
mostly easy (most configurations near the best); this one is the benchmark's
hard case. In the memtune recording format
(search/include/memtune/search/recording.hpp).

The times come from a roofline-style model in which the axes interact:
  * DRAM: the volume read once and written once, plus the part of the halo
    that misses L2; the achievable bandwidth is capped by bytes in flight per
    SM (Little's law: resident warps x vector width x independent loads),
    and the last wave of blocks idles part of the GPU (tiles against
    resident blocks: 7001 is a multiple of no tile);
  * registers grow with vector width x rows per thread x unrolling; the
    occupancy they leave sets the bytes in flight, and past 255 they spill;
  * shared memory: the staged tile's row pitch (tile + halo + padding) sets
    the bank conflicts of the column reads (pitch a multiple of 32: as many
    ways as the block has rows; even: 2-way);
  * issue: instructions per point fall with the vector width, rows per
    thread and unrolling (the z queue and address arithmetic amortised);
  * the cache hint: __ldg keeps more of the halo in L1; streaming stores
    help only when few bytes are in flight;
  * the three overlap imperfectly, plus launch and per-block overhead, then
    1.5 % log-normal measurement noise.
Failures: too many registers for the block (exceeds_device_limits), a staged
tile above 48 KB (exceeds_device_limits).

Usage: python3 make_hard_space.py [out.json]   (deterministic: seed 2027)
"""
import math
import random
import sys

from synthetic_recording import grid_trials, write_recording

NX = NY = 7001
R = 4
SMS, CLOCK_HZ, PEAK_BW = 132, 1.755e9, 3.35e12
LATENCY_BYTES = 40e3  # bytes in flight per SM needed to reach peak bandwidth
REGS_PER_SM, SMEM_PER_SM, SMEM_PER_BLOCK = 65536, 228 * 1024, 48 * 1024

AXES = [
    {"name": "block_x", "kind": "ordinal", "values": [32, 64, 128, 256], "description": "threads per block in x"},
    {"name": "block_y", "kind": "ordinal", "values": [1, 2, 4, 8, 16], "description": "threads per block in y"},
    {"name": "vec", "kind": "ordinal", "values": [1, 2, 4], "description": "floats per access in x"},
    {"name": "rows", "kind": "ordinal", "values": [1, 2, 4, 8], "description": "output rows per thread"},
    {"name": "unroll", "kind": "ordinal", "values": [1, 2, 4], "description": "stencil loop unrolling"},
    {"name": "padding", "kind": "ordinal", "values": [0, 1, 2, 4], "description": "words of padding per shared row"},
    {"name": "cache", "kind": "categorical", "labels": ["plain", "ldg", "stream"],
     "description": "loads and stores: plain, __ldg, streaming stores"},
]
CONSTRAINTS = [
    {"lhs": {"op": "*", "args": ["block_x", "block_y"]}, "cmp": "<=", "rhs": 1024,
     "reason": "at most 1024 threads per block"},
    {"lhs": {"op": "*", "args": ["block_x", "block_y"]}, "cmp": ">=", "rhs": 64,
     "reason": "at least two warps per block"},
]


def valid(c):
    threads = c["block_x"] * c["block_y"]
    return 64 <= threads <= 1024


def evaluate(c, rng):
    bx, by, vec, rows, unroll, pad = c["block_x"], c["block_y"], c["vec"], c["rows"], c["unroll"], c["padding"]
    threads = bx * by
    tile_x, tile_y = bx * vec, by * rows
    regs = 22 + vec * rows * (3 + unroll) + 2 * vec * R + (6 if c["cache"] == "ldg" else 0)
    spill = max(0, regs - 255)
    regs = min(regs, 255)
    if regs * threads > REGS_PER_SM:
        return {"status": "exceeds_device_limits", "reason": f"{regs} registers x {threads} threads > {REGS_PER_SM}"}
    pitch = tile_x + 2 * R + pad
    smem = (tile_y + 2 * R) * pitch * 4
    if smem > SMEM_PER_BLOCK:
        return {"status": "exceeds_device_limits", "reason": f"staged tile of {smem} bytes > {SMEM_PER_BLOCK}"}
    blocks_per_sm = max(1, min(32, 2048 // threads, REGS_PER_SM // (regs * threads), SMEM_PER_SM // smem))
    warps = blocks_per_sm * threads // 32
    in_flight = warps * 32 * 4 * vec * min(rows, 4) * (1.0 + 0.15 * (unroll - 1))
    bandwidth = PEAK_BW * 0.93 * min(1.0, in_flight / LATENCY_BYTES) ** 0.8
    if c["cache"] == "stream" and in_flight < LATENCY_BYTES:
        bandwidth *= 1.06
    halo = (tile_x + 2 * R) * (tile_y + 2 * R) / (tile_x * tile_y) - 1
    l2_miss = 0.05 if c["cache"] == "ldg" else 0.09
    points = NX * NY
    dram = points * 4 * (2 + l2_miss * halo) / bandwidth
    tiles = math.ceil(NX / tile_x) * math.ceil(NY / tile_y)
    waves = tiles / (SMS * blocks_per_sm)
    dram /= waves / math.ceil(waves)
    ways = min(by, 32) if pitch % 32 == 0 else 2 if pitch % 2 == 0 else 1
    smem_time = points * (4 * R + 1) / (32 * vec) * (1 + 0.5 * (ways - 1)) / (SMS * CLOCK_HZ * 0.5)
    instructions = points / vec * (6 + 4 * R / unroll + 12 / rows) / 32
    issue = instructions / (SMS * 4 * CLOCK_HZ) * (1 + 0.04 * spill)
    parts = sorted([dram, smem_time, issue])
    overhead = 3e-6 + tiles * 3e-9 / SMS
    t = parts[2] + 0.25 * parts[1] + 0.1 * parts[0] + overhead
    return {"status": "ok", "time_s": float(f"{t * math.exp(rng.gauss(0.0, 0.015)):.4e}")}


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "synthetic_hard_space.json"
    rng = random.Random(2027)
    trials = grid_trials(AXES, valid, lambda c: evaluate(c, rng))
    doc = {"schema_version": 1, "tool": "memtune 0.1.0 (synthetic, bench/data/make_hard_space.py)",
           "template": "synthetic_stencil", "problem": {"nx": NX, "ny": NY, "radius": R},
           "device": {"name": "synthetic H100-like", "compute_capability": "9.0", "sm_count": SMS},
           "space": {"axes": AXES, "constraints": CONSTRAINTS, "pruned": []}, "trials": trials}
    write_recording(out, doc)

if __name__ == "__main__":
    main()
