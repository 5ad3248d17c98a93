#!/usr/bin/env python3
"""Runs Kernel Tuner's strategies on a memtune recording, for a side-by-side
with memtune_search_bench.

The recording (search/include/memtune/search/recording.hpp) is converted into
a Kernel Tuner cache file and replayed with tune_kernel(...,
simulation_mode=True, cache=...), which evaluates nothing: every config's time
comes from the cache. Each strategy runs once per seed (Python's and numpy's
global generators are seeded, which is what Kernel Tuner's strategies draw
from). The metrics are those of memtune_search_bench, over unique configs in
the order Kernel Tuner first evaluated them:
  * evaluations until the best so far is within 5% / 1% of the optimum,
  * best found (time / optimum) after 10% / 20% of the grid's evaluations,
as median [interquartile range] over the seeds; "inf" when more than the
quartile's share of runs never got there within the budget.

Conversion: ordinal axes keep their values; a categorical axis becomes the
integer label index (memtune's own encoding), so memtune constraints become
Kernel Tuner restriction strings verbatim (C++ '/' on the non-negative values
used here is Python '//'). Times go to milliseconds (Kernel Tuner's unit).
Failures become Kernel Tuner error markers: compile_failed ->
CompilationFailedConfig, exceeds_device_limits -> InvalidConfig, anything else
-> RuntimeFailedConfig.

  pip install kernel_tuner scikit-learn
  python3 kernel_tuner_compare.py bench/data/synthetic_space.json [--seeds 30] [--json]
"""
import argparse
import contextlib
import io
import json
import math
import os
import random
import sys
import tempfile
import time
import warnings

import numpy as np

OPS = {"+": "+", "-": "-", "*": "*", "/": "//", "%": "%"}
ERRORS = {"compile_failed": "CompilationFailedConfig", "exceeds_device_limits": "InvalidConfig"}


LOGIC = {"==": "==", "!=": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">="}


def expr_to_python(e, labels=None, context=None):
    """A memtune expression (search/include/memtune/search/expr.hpp, JSON form)
    as a Python expression over Kernel Tuner's parameters. C semantics: a
    comparison or logical operator yields 0 or 1, '/' truncates (the values
    are non-negative here, so '//'), ceil_div rounds up. labels: categorical
    axis -> its labels, so that a label compared with an axis becomes the
    label's index (memtune's encoding, see convert); context: that axis."""
    labels = labels or {}
    if isinstance(e, bool) or not isinstance(e, (int, str, dict)):
        raise ValueError(f"unsupported expression {e!r}")
    if isinstance(e, int):
        return str(e)
    if isinstance(e, str):
        return e
    op, args = e["op"], e["args"]
    if op == "label":
        if context not in labels or args[0] not in labels[context]:
            raise ValueError(f"label {args[0]!r} is not compared with a categorical axis that has it")
        return str(labels[context].index(args[0]))
    if op == "!":
        return f"int(not ({expr_to_python(args[0], labels, context)}))"
    if op == "neg":
        return f"(-({expr_to_python(args[0], labels, context)}))"
    if op == "?:":
        c, a, b = (expr_to_python(x, labels, context) for x in args)
        return f"(({a}) if ({c}) else ({b}))"
    a, b = args
    # A label on one side takes its index on the other side's axis.
    ctx_a = b if isinstance(b, str) else context
    ctx_b = a if isinstance(a, str) else context
    pa, pb = expr_to_python(a, labels, ctx_a), expr_to_python(b, labels, ctx_b)
    if op in ("min", "max"):
        return f"{op}({pa}, {pb})"
    if op == "ceil_div":
        return f"(-((-({pa})) // ({pb})))"
    if op == "bit_and":
        return f"(({pa}) & ({pb}))"
    if op == "bit_xor":
        return f"(({pa}) ^ ({pb}))"
    if op == "&&":
        return f"int(bool({pa}) and bool({pb}))"
    if op == "||":
        return f"int(bool({pa}) or bool({pb}))"
    if op in LOGIC:
        return f"int(({pa}) {LOGIC[op]} ({pb}))"
    if op not in OPS:
        raise ValueError(f"unsupported operator {op!r}")
    return f"({pa} {OPS[op]} {pb})"


def constraint_to_python(c, labels=None):
    lhs, rhs = c["lhs"], c["rhs"]
    pl = expr_to_python(lhs, labels, rhs if isinstance(rhs, str) else None)
    pr = expr_to_python(rhs, labels, lhs if isinstance(lhs, str) else None)
    s = f"{pl} {c['cmp']} {pr}"
    if "if" in c:
        s = f"(not ({constraint_to_python(c['if'], labels)})) or ({s})"
    return s


def convert(recording):
    """Returns (tune_params, restrictions, cache document, ok times [s] by key)."""
    axes = recording["space"]["axes"]
    tune_params = {}
    for a in axes:
        tune_params[a["name"]] = a["values"] if a.get("kind", "ordinal") == "ordinal" else list(range(len(a["labels"])))
    labels = {a["name"]: a["labels"] for a in axes if a.get("kind", "ordinal") != "ordinal"}
    restrictions = [constraint_to_python(c, labels) for c in recording["space"].get("constraints", [])]

    def value(axis, v):
        return v if axis.get("kind", "ordinal") == "ordinal" else axis["labels"].index(v)

    cache, times = {}, {}
    for t in recording["trials"]:
        params = {a["name"]: value(a, t["config"][a["name"]]) for a in axes}
        key = ",".join(str(params[a["name"]]) for a in axes)
        entry = dict(params)
        if t["status"] == "ok":
            ms = t["time_s"] * 1e3
            entry.update(time=ms, times=[ms], compile_time=0.0, verification_time=0.0, benchmark_time=ms)
            times[key] = t["time_s"]
        else:
            entry["time"] = ERRORS.get(t["status"], "RuntimeFailedConfig")
            entry.update(compile_time=0.0, verification_time=0.0, benchmark_time=0.0)
            times[key] = math.inf
        cache[key] = entry
    doc = {
        "device_name": recording.get("device", {}).get("name", "recorded device"),
        "kernel_name": recording["template"],
        "problem_size": [int(v) for v in recording.get("problem", {}).values() if isinstance(v, int)] or [1],
        "tune_params_keys": list(tune_params),
        "tune_params": tune_params,
        "objective": "time",
        "cache": cache,
    }
    return tune_params, restrictions, doc, times


# Kernel Tuner 1.x's bayes_opt draws `popsize` (default 20) initial samples and
# raises ValueError("Can't sample more than the size of the search space") on
# a smaller space. There its initial sample is capped at half the valid configs
# (the only change to its defaults; the JSON rows record it).
KT_BAYES_DEFAULT_POPSIZE = 20


def strategy_options(strategy, configs, budget):
    options = {"max_fevals": budget}
    if strategy == "bayes_opt" and configs < KT_BAYES_DEFAULT_POPSIZE:
        options["popsize"] = max(1, configs // 2)
    return options


def run_once(kernel_tuner, doc, tune_params, restrictions, cache_path, strategy, options, seed):
    random.seed(seed)
    np.random.seed(seed)
    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("ignore")
        results, _ = kernel_tuner.tune_kernel(
            doc["kernel_name"], "/* replayed from a memtune recording */", doc["problem_size"], [], tune_params,
            restrictions=restrictions or None, strategy=strategy, strategy_options=options,
            cache=cache_path, simulation_mode=True, quiet=True, verbose=False)
    order = []
    seen = set()
    for r in results:
        if r is None:
            continue
        key = ",".join(str(r[k]) for k in tune_params)
        if key not in seen:
            seen.add(key)
            order.append(key)
    return order


def evaluations_to(order, times, optimum, factor):
    for i, key in enumerate(order):
        if times[key] <= optimum * factor:
            return i + 1
    return None


def best_after(order, times, optimum, k):
    best = min((times[key] for key in order[:k]), default=math.inf)
    return None if math.isinf(best) else best / optimum


def summarize(values):
    v = np.array([math.inf if x is None else x for x in values], dtype=float)
    q1, med, q3 = (float(np.percentile(v, q)) if np.isfinite(np.percentile(v, q)) else math.inf
                   for q in (25, 50, 75))
    return {"median": med, "q1": q1, "q3": q3, "missing": int(sum(x is None for x in values))}


def best_so_far(curves):
    """Per evaluation k, quartiles over the seeds of best so far / optimum (a
    run that stopped early keeps its last value), as memtune_search_bench --json
    writes them for `memtune report`'s trajectory."""
    longest = max((len(c) for c in curves), default=0)
    out = {"median": [], "q1": [], "q3": []}
    for k in range(longest):
        s = summarize([c[min(k, len(c) - 1)] if c else None for c in curves])
        for key, name in (("median", "median"), ("q1", "q1"), ("q3", "q3")):
            out[key].append(s[name])
    return out


def step_cost(kernel_tuner, path, ns, seeds):
    """bayes_opt's CPU per proposal on one recording: each seed runs to every
    n of `ns` (separate runs, max_fevals = n), timed by this process's CPU
    clock; the cost of a proposal between two ns is the difference of their
    runs' CPU over the difference of their evaluations (the mean step there,
    refits included), and a run's CPU is the largest n's."""
    with open(path) as f:
        recording = json.load(f)
    tune_params, restrictions, doc, times = convert(recording)
    cpu = {n: [] for n in ns}
    wall = {n: [] for n in ns}
    with tempfile.TemporaryDirectory() as tmp:
        cache_path = os.path.join(tmp, "cache.json")
        with open(cache_path, "w") as f:
            json.dump(doc, f)
        for seed in range(1, seeds + 1):
            for n in ns:
                options = strategy_options("bayes_opt", len(times), min(n, len(times)))
                started, wall_started = time.process_time(), time.perf_counter()
                run_once(kernel_tuner, doc, tune_params, restrictions, cache_path, "bayes_opt", options, seed)
                cpu[n].append(time.process_time() - started)
                wall[n].append(time.perf_counter() - wall_started)
    median = {n: float(np.median(cpu[n])) for n in ns}
    steps, previous = {}, (0, 0.0)
    for n in ns:
        steps[n] = 1e3 * (median[n] - previous[1]) / (n - previous[0])
        previous = (n, median[n])
    return {"recording": path, "configs": len(times), "ms_per_proposal": steps, "cpu_s": median,
            "wall_s": {n: float(np.median(wall[n])) for n in ns}}


def cell(s, precision):
    if s is None:
        return "-"
    f = lambda x: "inf" if math.isinf(x) else f"{x:.{precision}f}"
    return f"{f(s['median'])} [{f(s['q1'])}-{f(s['q3'])}]"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("recordings", nargs="+")
    parser.add_argument("--seeds", type=int, default=30)
    parser.add_argument("--strategies", default="bayes_opt,random_sample")
    parser.add_argument("--budget-fraction", type=float, default=1.0,
                        help="max_fevals as a fraction of the valid configs (default: all)")
    parser.add_argument("--max-fevals", type=int, default=0,
                        help="at most this many evaluations a run (0: no cap); on a space of thousands bayes_opt "
                             "takes minutes per run, so the hard space's runs are capped (best@k%% then covers the "
                             "evaluations run)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--step-cost", default="",
                        help="only bayes_opt's CPU per proposal at these numbers of evaluations (e.g. 50,100,200,500), "
                             "median over --seeds, as memtune_search_bench --step-cost prints memtune's")
    args = parser.parse_args()
    if args.max_fevals < 0:
        parser.error(f"--max-fevals {args.max_fevals}: at least 0 (0: no cap)")
    if args.seeds < 1:
        parser.error(f"--seeds {args.seeds}: at least 1")
    import kernel_tuner  # late, so that --help works without it

    if args.step_cost:
        try:
            ns = sorted({int(x) for x in args.step_cost.split(",")})
        except ValueError:
            parser.error(f"--step-cost {args.step_cost}: a comma-separated list of numbers of evaluations")
        if ns[0] < 1:
            parser.error(f"--step-cost {args.step_cost}: numbers of evaluations start at 1")
        print(f"Kernel Tuner bayes_opt step cost (this process's CPU, median of {args.seeds} seeds): ms per proposal "
              f"between the previous n and n (mean, refits included), and the run's CPU at the largest n")
        print(f"{'space':28} {'configs':>7} " + " ".join(f"{'n=' + str(n):>10}" for n in ns) +
              f" {'CPU/run [s]':>12} {'wall/run [s]':>13}")
        for path in args.recordings:
            r = step_cost(kernel_tuner, path, ns, args.seeds)
            shown = path if len(path) <= 28 else "..." + path[-25:]
            print(f"{shown:28} {r['configs']:7} " + " ".join(f"{r['ms_per_proposal'][n]:10.2f}" for n in ns) +
                  f" {r['cpu_s'][ns[-1]]:12.2f} {r['wall_s'][ns[-1]]:13.2f}")
        return

    rows = []
    for path in args.recordings:
        with open(path) as f:
            recording = json.load(f)
        tune_params, restrictions, doc, times = convert(recording)
        configs = len(times)
        optimum = min(times.values())
        at10, at20 = math.ceil(0.1 * configs), math.ceil(0.2 * configs)
        budget = max(at20, math.ceil(args.budget_fraction * configs))
        if args.max_fevals > 0:
            budget = min(budget, args.max_fevals)
        with tempfile.TemporaryDirectory() as tmp:
            cache_path = os.path.join(tmp, "cache.json")
            with open(cache_path, "w") as f:
                json.dump(doc, f)
            for strategy in args.strategies.split(","):
                started = time.perf_counter()
                options = strategy_options(strategy, configs, budget)
                to5, to1, b10, b20, curves = [], [], [], [], []
                for seed in range(1, args.seeds + 1):
                    order = run_once(kernel_tuner, doc, tune_params, restrictions, cache_path, strategy, options, seed)
                    to5.append(evaluations_to(order, times, optimum, 1.05))
                    to1.append(evaluations_to(order, times, optimum, 1.01))
                    b10.append(best_after(order, times, optimum, at10))
                    b20.append(best_after(order, times, optimum, at20))
                    curves.append([best_after(order, times, optimum, k) for k in range(1, len(order) + 1)])
                seconds = (time.perf_counter() - started) / args.seeds
                print(f"{path}: {strategy} done ({seconds:.3f} s per run)", file=sys.stderr)
                # Runs capped before the 20 % mark (--max-fevals on a space of 10^5) never reach it: not measured.
                marks = at20 <= budget
                rows.append({"recording": path, "strategy": "kt:" + strategy, "configs": configs,
                             "optimum_s": optimum, "budget": budget, "strategy_options": options,
                             "evaluations_to_within_5pct": summarize(to5), "evaluations_to_within_1pct": summarize(to1),
                             "best_over_optimum_at_10pct": summarize(b10) if marks else None,
                             "best_over_optimum_at_20pct": summarize(b20) if marks else None,
                             "seconds_per_run": seconds, "best_so_far": best_so_far(curves)})
    if args.json:
        # JSON has no infinity: a median never reached is null, as in memtune_search_bench --json.
        def finite(x):
            if isinstance(x, dict):
                return {k: finite(v) for k, v in x.items()}
            if isinstance(x, list):
                return [finite(v) for v in x]
            return None if isinstance(x, float) and math.isinf(x) else x
        rows = [finite(r) for r in rows]
        print(json.dumps({"schema_version": 1, "tool": f"kernel_tuner_compare (kernel_tuner {kernel_tuner.__version__})"
                          if hasattr(kernel_tuner, "__version__") else "kernel_tuner_compare",
                          "seeds": args.seeds, "results": rows}, indent=2))
        return
    print(f"{args.seeds} seeds; medians with [interquartile range]; best@k% = best time / optimum after k% of the grid")
    print(f"{'recording':28} {'strategy':16} {'configs':>7} {'evals to 5%':>22} {'evals to 1%':>22} "
          f"{'best@10%':>24} {'best@20%':>24} {'s/run':>9}")
    for r in rows:
        shown = r["recording"] if len(r["recording"]) <= 28 else "..." + r["recording"][-25:]
        print(f"{shown:28} {r['strategy']:16} {r['configs']:7} {cell(r['evaluations_to_within_5pct'], 0):>22} "
              f"{cell(r['evaluations_to_within_1pct'], 0):>22} {cell(r['best_over_optimum_at_10pct'], 3):>24} "
              f"{cell(r['best_over_optimum_at_20pct'], 3):>24} {r['seconds_per_run']:9.3f}")


if __name__ == "__main__":
    main()
