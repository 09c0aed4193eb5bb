"""A real application's GEMMs for test_hook_numpy.sh: numpy and scipy on the
system BLAS (a matrix product, a linear solve, a least-squares fit, a
symmetric eigenproblem), deterministic inputs; the results saved to OUT.npz."""
import sys

import numpy as np
import scipy.linalg

rng = np.random.default_rng(20240601)
a = rng.standard_normal((160, 160)) + 160 * np.eye(160)
b = rng.standard_normal((160, 4))
x = np.linalg.solve(a, b)                      # LAPACK dgesv: dgemm_ in dgetrf
p = a @ rng.standard_normal((160, 96))         # numpy matmul: cblas_dgemm
f = rng.standard_normal((200, 90))
y = f @ rng.standard_normal(90) + 1e-3 * rng.standard_normal(200)
coef = scipy.linalg.lstsq(f, y, lapack_driver="gelsd")[0]
s = f.T @ f                                    # numpy: a syrk, not a gemm
w, v = scipy.linalg.eigh(s)                    # LAPACK dsyevd
np.savez(sys.argv[1], x=x, p=p, coef=coef, w=w)
