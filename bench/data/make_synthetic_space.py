#!/usr/bin/env python3
"""Writes synthetic_space.json: a made-up but plausible recording of the
filter template (1D FIR, 21 taps, n = 16M floats) on an H100-like GPU, in the
memtune recording format (search/include/memtune/search/recording.hpp).

It exists so the search benchmark runs before real recordings do. The times
come from a small roofline-style model, not from a GPU:
  * DRAM time: bytes moved (halo included) over an achievable bandwidth that
    Little's law caps by bytes in flight per SM (occupancy x loads per thread);
  * shared-memory time: tap reads per warp instruction x bank-conflict ways
    (float2 in 4-byte bank mode is 2-way, as on Kepler; float2 halves the
    instruction count);
  * the two overlap imperfectly; plus launch and per-block overhead;
  * 1.5 % log-normal measurement noise.
Failures: too many registers for the block (exceeds_device_limits), and float2
shared stores at odd padding (launch_failed: misaligned address).

Usage: python3 make_synthetic_space.py [out.json] [--no-failures]   (deterministic: seed 2026)
--no-failures times every config as if it ran (a control for how strategies
cope with failures; not committed).
"""
import math
import random
import sys

from synthetic_recording import grid_trials, write_recording

N, TAPS = 16 * 1024 * 1024, 21
RADIUS = TAPS // 2
SMS, CLOCK_HZ, PEAK_BW = 132, 1.755e9, 3.35e12
LATENCY_BYTES = 48e3  # bytes in flight per SM needed to reach peak bandwidth
REGS_PER_SM, SMEM_PER_SM = 65536, 228 * 1024

AXES = [
    {"name": "block_size", "kind": "ordinal", "values": [32, 64, 128, 256, 512, 1024],
     "description": "threads per block"},
    {"name": "items_per_thread", "kind": "ordinal", "values": [1, 2, 4, 8],
     "description": "outputs computed by each thread"},
    {"name": "packing", "kind": "categorical", "labels": ["float", "float2"],
     "description": "element type staged in shared memory"},
    {"name": "bank_mode", "kind": "categorical", "labels": ["4B", "8B"],
     "description": "shared-memory bank width"},
    {"name": "padding", "kind": "ordinal", "values": [0, 1, 2, 4, 8],
     "description": "words of padding after the staged tile"},
]
CONSTRAINTS = [
    {"lhs": {"op": "*", "args": ["block_size", "items_per_thread"]}, "cmp": "<=", "rhs": 4096,
     "reason": "staged tile fits in 48 KB of shared memory"},
    {"if": {"lhs": "packing", "cmp": "==", "rhs": 1}, "lhs": "items_per_thread", "cmp": ">=", "rhs": 2,
     "reason": "float2 computes outputs in pairs"},
]


def valid(c):
    if c["block_size"] * c["items_per_thread"] > 4096:
        return False
    return not (c["packing"] == "float2" and c["items_per_thread"] < 2)


def evaluate(c, rng, failures=True):
    bs, items, pad = c["block_size"], c["items_per_thread"], c["padding"]
    pack = 2 if c["packing"] == "float2" else 1
    regs = 28 + 8 * items + (8 if pack == 2 else 0)
    if failures and regs * bs > REGS_PER_SM:
        return {"status": "exceeds_device_limits",
                "reason": f"{regs} registers x {bs} threads > {REGS_PER_SM} per SM"}
    if failures and pack == 2 and pad % 2 == 1:
        return {"status": "launch_failed",
                "reason": "misaligned address: float2 shared store after odd padding"}
    smem = (bs * items + 2 * RADIUS + pad) * 4
    blocks = max(1, min(32, 2048 // bs, REGS_PER_SM // (regs * bs), SMEM_PER_SM // smem))
    warps = blocks * bs // 32
    ilp = min(items * pack, 8)
    in_flight = warps * 32 * 4 * ilp
    bandwidth = PEAK_BW * min(1.0, in_flight / LATENCY_BYTES) * 0.92
    tile = bs * items
    dram = 2 * 4 * N * (tile + 2 * RADIUS) / tile / bandwidth
    ways = 2 if (pack == 2 and c["bank_mode"] == "4B") else 1
    smem_time = N * TAPS / (pack * 32) * ways / (SMS * CLOCK_HZ)
    overhead = 3e-6 + (N / tile) * 4e-9 / SMS
    t = max(dram, smem_time) + 0.2 * min(dram, smem_time) + overhead
    return {"status": "ok", "time_s": float(f"{t * math.exp(rng.gauss(0.0, 0.015)):.4e}")}


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    failures = "--no-failures" not in sys.argv[1:]
    out = args[0] if args else "synthetic_space.json"
    rng = random.Random(2026)
    trials = grid_trials(AXES, valid, lambda c: evaluate(c, rng, failures))
    doc = {"schema_version": 1, "tool": "memtune 0.1.0 (synthetic, bench/data/make_synthetic_space.py)",
           "template": "filter", "problem": {"n": N, "taps": TAPS},
           "device": {"name": "synthetic H100-like", "compute_capability": "9.0", "sm_count": SMS},
           "space": {"axes": AXES, "constraints": CONSTRAINTS, "pruned": []}, "trials": trials}
    write_recording(out, doc, indent=1)

if __name__ == "__main__":
    main()
