"""Writes a made-up recording (make_synthetic_space.py, make_hard_space.py)
in the memtune recording format (search/include/memtune/search/recording.hpp)
and prints its counts: configs, failures, best, median, within 5 % and 1 %."""
import json


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
