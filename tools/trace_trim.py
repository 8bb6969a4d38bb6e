#!/usr/bin/env python3
"""Trims a captured PyTorch trace set (tools/trace_capture.py) for shipping as test data.

  /usr/bin/python3 tools/trace_trim.py IN_DIR OUT_DIR

Drops what anatomy's importer does not read: the execution trace's operator
schemas, input/output values (a collective's inputs stay: its size) and the
fields it does not use, the operators whose name is never a leaf (only leaves and GEMMs
carry the shapes it reads), and in both files the view and aliasing operators that do no work
(as_strided, select, view, transpose, detach, ...), with what they hold.
Of several profiled steps it keeps the one anatomy replays (the median of
the slowest rank's times). Durations of what is kept are untouched, so a
replay of the trimmed set gives the step time the full set gives. Other
files are copied.
"""
import json
import os
import shutil
import sys

NO_WORK = {"aten::as_strided", "aten::select", "aten::resolve_conj", "aten::resolve_neg", "aten::view",
           "aten::_reshape_alias", "aten::transpose", "aten::t", "aten::expand", "aten::detach", "detach",
           "aten::slice", "aten::narrow", "aten::unsqueeze", "aten::squeeze", "aten::permute", "aten::alias",
           "aten::_unsafe_view", "aten::reshape", "aten::split", "aten::empty", "aten::empty_strided",
           "aten::empty_like", "aten::lift_fresh", "aten::item", "aten::_local_scalar_dense",
           "aten::is_nonzero", "aten::size", "aten::stride"}


def trim_et(doc):
    # A no-work operator goes with everything inside it.
    parent = {n["id"]: n.get("parent", n.get("ctrl_deps")) for n in doc["nodes"]}
    name = {n["id"]: n["name"] for n in doc["nodes"]}
    def dropped(i):
        seen = 0
        while i in name and seen < 64:
            if name[i] in NO_WORK:
                return True
            i, seen = parent[i], seen + 1
        return False
    # Only leaves carry the shapes anatomy reads (it finds a leaf's parent
    # in the profiler's nesting), and collectives their sizes.
    # anatomy matches operators of one name in order, so a name stays whole
    # or goes whole: kept when some operator of it is a leaf.
    parents = {parent[i] for i in parent if not dropped(i)}
    leaf_names = {name[i] for i in name if i not in parents and not dropped(i)}
    keep = []
    for n in doc["nodes"]:
        comm = n["name"].startswith(("gloo:", "nccl:")) or n["name"] == "record_param_comms"
        gemm = n["name"] in ("aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm")
        if dropped(n["id"]) or (n["name"] not in leaf_names and not comm and not gemm):
            continue
        for key in ("op_schema", "outputs", "fw_parent", "seq_id", "scope", "fw_tid", "tid"):
            n.pop(key, None)
        if not (n["name"].startswith(("gloo:", "nccl:")) or n["name"] == "record_param_comms"):
            n.pop("inputs", None)  # tensor ids and scalars: only a collective's are read
        keep.append(n)
    doc["nodes"] = keep
    return doc


def trim_profiler(events):
    listed = isinstance(events, list)
    ev = events if listed else events["traceEvents"]
    kept = []
    spans = sorted((e for e in ev if e.get("ph") == "X"), key=lambda e: (e.get("tid"), e["ts"], -e["dur"]))
    drop = set()
    stack = []
    for e in spans:
        while stack and (stack[-1].get("tid") != e.get("tid") or stack[-1]["ts"] + stack[-1]["dur"] < e["ts"] + e["dur"]):
            stack.pop()
        if e["name"] in NO_WORK or (stack and id(stack[-1]) in drop):
            drop.add(id(e))
        stack.append(e)
    for e in ev:
        if id(e) in drop:
            continue
        if e.get("args") == {}:
            del e["args"]
        kept.append(e)
    if listed:
        return kept
    events["traceEvents"] = kept
    return events


def steps(events):
    ev = events if isinstance(events, list) else events["traceEvents"]
    return sorted((e for e in ev if e.get("ph") == "X" and e["name"].startswith("ProfilerStep#")), key=lambda e: e["ts"])


def keep_step(events, span):
    """Only the events inside one profiled step (any thread)."""
    lo, hi = span["ts"], span["ts"] + span["dur"]
    ev = events if isinstance(events, list) else events["traceEvents"]
    kept = [e for e in ev if e.get("ph") != "X" or (e["ts"] >= lo and e["ts"] + e["dur"] <= hi)]
    if isinstance(events, list):
        return kept
    events["traceEvents"] = kept
    return events


def main():
    src, dst = sys.argv[1], sys.argv[2]
    os.makedirs(dst, exist_ok=True)
    # Of several profiled steps, the one anatomy replays: the median of the
    # slowest rank's times (pytorch_reader.h).
    profiles = {}
    for name in sorted(os.listdir(src)):
        if name.startswith("kineto_") and name.endswith(".json"):
            with open(os.path.join(src, name)) as f:
                profiles[name] = json.load(f)
    count = min(len(steps(p)) for p in profiles.values()) if profiles else 0
    slowest = sorted((max(steps(p)[k]["dur"] for p in profiles.values()), k) for k in range(count))
    chosen = slowest[(count - 1) // 2][1] if count else None
    for name in sorted(os.listdir(src)):
        path = os.path.join(src, name)
        out = os.path.join(dst, name)
        if name.endswith(".json") and name.startswith("et_"):
            with open(path) as f:
                doc = trim_et(json.load(f))
        elif name.endswith(".json") and name.startswith("kineto_"):
            doc = profiles[name]
            if chosen is not None:
                doc = keep_step(doc, steps(doc)[chosen])
            doc = trim_profiler(doc)
        else:
            shutil.copy(path, out)
            continue
        with open(out, "w") as f:
            json.dump(doc, f, separators=(",", ":"))


if __name__ == "__main__":
    main()
