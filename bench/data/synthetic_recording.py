"""The made-up recordings' common parts (make_synthetic_space.py,
make_hard_space.py): every valid config of the axes in grid order, and the
writer of the memtune recording format
(search/include/memtune/search/recording.hpp), which prints its counts:
configs, failures, best, median, within 5 % and 1 %."""
import itertools
import json


def grid_trials(axes, valid, evaluate):
    """One trial per valid config, in grid order (first axis slowest), each
    config's outcome from evaluate(config): the order its noise is drawn in."""
    names = [a["name"] for a in axes]
    domains = [a.get("values", a.get("labels")) for a in axes]
    trials = []
    for combo in itertools.product(*domains):
        c = dict(zip(names, combo))
        if valid(c):
            trials.append({"config": c, **evaluate(c)})
    return trials


def write_recording(out, doc, indent=None):
    """doc: the recording's fields (space, trials, ...); indent=None writes it compact."""
    with open(out, "w") as f:
        json.dump(doc, f, indent=indent, separators=None if indent is not None else (",", ":"))
        f.write("\n")
    trials = doc["trials"]
    ok = sorted(t["time_s"] for t in trials if t["status"] == "ok")
    print(f"{out}: {len(trials)} configs, {len(trials) - len(ok)} failed, "
          f"best {ok[0]:.3e} s, median {ok[len(ok) // 2]:.3e} s, within 5%: "
          f"{sum(t <= 1.05 * ok[0] for t in ok)}, within 1%: {sum(t <= 1.01 * ok[0] for t in ok)}")
