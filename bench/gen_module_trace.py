"""A Kineto trace with an nn.Module tree (with_stack-like python_function events), for timing
the module tree (derive/125) and the module alignment.

Per step: Model_0 > LAYERS × Layer_l > (Attention_l, MLP_l) > 3 × Linear_k, each Linear holding
one aten::linear that launches one kernel, with a fwdbwd flow to a backward op (launching one
kernel) after the forward pass, then Optimizer.step#SGD.step.

    python bench/gen_module_trace.py --steps 10 --layers 400 OUT.pt.trace.json

10 × 400 gives 31 MB, 36 010 nn.Module events, 24 000 backward modules, 48 000 kernels.
"""
from __future__ import annotations

import argparse
import json


def trace(steps: int, layers: int) -> dict:
    ev: list[dict] = []
    t = 0.0
    corr = 0
    flow = 0

    def x(cat, name, tid, ts, dur, **args):
        e = {"ph": "X", "cat": cat, "name": name, "pid": 0 if cat == "kernel" else 1, "tid": tid,
             "ts": round(ts, 3), "dur": round(dur, 3)}
        if args:
            e["args"] = args
        ev.append(e)
        return e

    def close(e):
        e["dur"] = round(t - e["ts"], 3)

    for s in range(steps):
        step = x("user_annotation", f"ProfilerStep#{s}", 1, t, 0)
        model = x("python_function", "nn.Module: Model_0", 1, t, 0)
        t += 1
        flows = []
        for layer in range(layers):
            lay = x("python_function", f"nn.Module: Layer_{layer}", 1, t, 0)
            t += 1
            for sub in ("Attention", "MLP"):
                part = x("python_function", f"nn.Module: {sub}_{layer}", 1, t, 0)
                t += 1
                for k in range(3):
                    lin = x("python_function", f"nn.Module: Linear_{layer * 3 + k}", 1, t, 0)
                    t += 0.5
                    x("cpu_op", "aten::linear", 1, t, 5)
                    corr += 1
                    x("cuda_runtime", "cudaLaunchKernel", 1, t + 1, 1, correlation=corr)
                    x("kernel", "gemm", 7, t + 100, 3, correlation=corr, stream=7, device=0)
                    flow += 1
                    flows.append(flow)
                    ev.append({"ph": "s", "cat": "fwdbwd", "name": "fwdbwd", "id": flow, "pid": 1, "tid": 1,
                               "ts": round(t, 3)})
                    t += 6
                    close(lin)
                    t += 0.5
                close(part)
                t += 0.5
            close(lay)
            t += 0.5
        close(model)
        t += 1
        for f in reversed(flows):
            x("cpu_op", "autograd::engine::evaluate_function: AddmmBackward0", 2, t, 8)
            ev.append({"ph": "f", "cat": "fwdbwd", "name": "fwdbwd", "id": f, "pid": 1, "tid": 2,
                       "ts": round(t, 3), "bp": "e"})
            x("cpu_op", "aten::mm", 2, t + 1, 5)
            corr += 1
            x("cuda_runtime", "cudaLaunchKernel", 2, t + 2, 1, correlation=corr)
            x("kernel", "gemm_bwd", 7, t + 100, 3, correlation=corr, stream=7, device=0)
            t += 9
        x("user_annotation", "Optimizer.step#SGD.step", 1, t, 20)
        t += 21
        close(step)
    return {"schemaVersion": 1, "baseTimeNanoseconds": 1_700_000_000_000_000_000, "traceEvents": ev}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--layers", type=int, default=400)
    ap.add_argument("out")
    a = ap.parse_args()
    doc = trace(a.steps, a.layers)
    with open(a.out, "w") as f:
        json.dump(doc, f)
    print(f"{a.out}: {len(doc['traceEvents']):,} events")


if __name__ == "__main__":
    main()
