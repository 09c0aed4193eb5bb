"""A float64 PyTorch workload on the GPU for libmpbench_hook.so's cuBLAS half
(scripts/gpu-hook-workload runs it): a least-squares fit by the normal
equations and a linear solve, every product a cuBLAS DGEMM.

  torch_workload.py run DIR    compute, save the results to DIR/result.pt
  torch_workload.py score OUT  (without the hook) each run's application-level
                               errors from OUT/*/result.pt into OUT/app_error.csv

Only torch: the errors are computed in a process of their own, so that the
hook's emulation never touches the arithmetic that grades it."""
import os
import sys

import torch


def workload():
    g = torch.Generator(device="cpu").manual_seed(35)
    dev = torch.device("cuda")
    # a least-squares fit: X (4096x512, columns scaled over 1e3), Y = X·W_true + noise (16 right-hand
    # sides) with W_true = [I/2; 0], built elementwise: no GEMM outside the workload's own
    x = torch.randn(4096, 512, generator=g, dtype=torch.float64)
    x = x * torch.logspace(0, 3, 512, dtype=torch.float64)
    w_true = torch.zeros(512, 16, dtype=torch.float64)
    w_true[:16] = 0.5 * torch.eye(16, dtype=torch.float64)
    y = 0.5 * x[:, :16] + 1e-3 * torch.randn(4096, 16, generator=g, dtype=torch.float64)
    x, y = x.to(dev), y.to(dev)
    gram = x.T @ x                    # DGEMM T,N 512x512x4096
    rhs = x.T @ y                     # DGEMM T,N 512x16x4096
    w = torch.linalg.solve(gram, rhs)
    fit = x @ w                       # DGEMM N,N 4096x16x512
    # a linear solve A·Z = B with A = M·Mᵀ + n·I and B = A·Z_true, both built by DGEMMs
    m = torch.randn(1024, 1024, generator=g, dtype=torch.float64).to(dev)
    a = m @ m.T + 1024 * torch.eye(1024, dtype=torch.float64, device=dev)
    z_true = torch.randn(1024, 64, generator=g, dtype=torch.float64).to(dev)
    b = a @ z_true
    z = torch.linalg.solve(a, b)
    torch.cuda.synchronize()
    return {"x": x, "y": y, "gram": gram, "rhs": rhs, "w": w, "fit": fit, "a": a, "b": b, "z": z,
            "z_true": z_true, "w_true": w_true.to(dev)}


def score(out):
    runs = sorted(d for d in os.listdir(out) if os.path.isfile(os.path.join(out, d, "result.pt")))
    if "native" not in runs:
        sys.exit("score: %s/native/result.pt missing" % out)
    native = torch.load(os.path.join(out, "native", "result.pt"))
    fro = torch.linalg.norm
    rows = []
    for run in runs:
        r = torch.load(os.path.join(out, run, "result.pt"))
        # the solves' normwise backward errors against the run's own (A, B), in float64 without the hook
        gram_be = fro(r["gram"] @ r["w"] - r["rhs"]) / (fro(r["gram"]) * fro(r["w"]) + fro(r["rhs"]))
        a_be = fro(r["a"] @ r["z"] - r["b"]) / (fro(r["a"]) * fro(r["z"]) + fro(r["b"]))
        # the application's answers: against the native run's, the data's true ones, and the fit's residual
        rows.append([run,
                     "%.6e" % (fro(r["gram"] - native["gram"]) / fro(native["gram"])).item(),
                     "%.6e" % gram_be.item(),
                     "%.6e" % (fro(r["w"] - native["w"]) / fro(native["w"])).item(),
                     "%.6e" % (fro(r["w"] - r["w_true"]) / fro(r["w_true"])).item(),
                     "%.6e" % (fro(r["fit"] - r["y"]) / fro(r["y"])).item(),
                     "%.6e" % a_be.item(),
                     "%.6e" % (fro(r["z"] - native["z"]) / fro(native["z"])).item(),
                     "%.6e" % (fro(r["z"] - r["z_true"]) / fro(r["z_true"])).item(),
                     str(all(torch.equal(r[k], native[k]) for k in native))])
    head = ["run", "gram_vs_native", "ls_solve_backward_err", "w_vs_native", "w_vs_true", "ls_rel_residual",
            "solve_backward_err", "z_vs_native", "z_vs_true", "bitwise_native"]
    with open(os.path.join(out, "app_error.csv"), "w") as f:
        f.write(",".join(head) + "\n")
        for row in rows:
            f.write(",".join(row) + "\n")
    for row in [head] + rows:
        print("  ".join("%-22s" % c for c in row))


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("run", "score"):
        sys.exit("usage: torch_workload.py run DIR | score OUT")
    if not torch.cuda.is_available():
        print("torch_workload: no CUDA device: skipped")
        sys.exit(77)
    if sys.argv[1] == "run":
        os.makedirs(sys.argv[2], exist_ok=True)
        torch.save({k: v.cpu() for k, v in workload().items()}, os.path.join(sys.argv[2], "result.pt"))
    else:
        score(sys.argv[2])


main()
