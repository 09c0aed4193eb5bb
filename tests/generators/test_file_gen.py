"""The file generator end to end (README "Grading your own matrices"): .npy
files written here byte by byte (no numpy needed), in C and Fortran order,
as float64, float32, complex128 and complex64, in formats 1.0, 2.0 and 3.0,
and Matrix Market dense arrays, run through `mpbench run --backend host`
with --dump; the C each scheme wrote must be the product of the
integer-valued A and B computed here (exact in every type), gen_params must
name each file by its path and SHA-256, the case string must rerun the case
and refuse a changed file. Each malformed file is refused with exit 2, a
message naming the file, and the --csv file left as it was.
Usage: test_file_gen.py MPBENCH"""
import ast
import csv
import hashlib
import json
import os
import struct
import subprocess
import sys
import tempfile

MPB = os.path.abspath(sys.argv[1])
fails = 0


def fail(msg):
    global fails
    fails += 1
    print("FAIL: " + msg)


# descr: (struct code of a part, parts)
DTYPES = {"<f8": ("d", 1), "<f4": ("f", 1), "<c16": ("d", 2), "<c8": ("f", 2)}


def npy_bytes(rows, descr, fortran=False, version=1, header=None, data=None):
    """An .npy file of `rows` (a list of lists of numbers or complex)."""
    code, parts = DTYPES.get(descr, ("d", 1))
    m, n = len(rows), len(rows[0])
    if header is None:
        header = "{'descr': '%s', 'fortran_order': %s, 'shape': (%d, %d), }" % (descr, fortran, m, n)
    order = [(i, j) for j in range(n) for i in range(m)] if fortran else [(i, j) for i in range(m) for j in range(n)]
    if data is None:
        vals = []
        for i, j in order:
            x = complex(rows[i][j])
            vals += [x.real, x.imag][:parts]
        data = struct.pack("<%d%s" % (len(vals), code), *vals)
    lenfmt, pre = ("<H", 10) if version == 1 else ("<I", 12)
    h = header.encode()
    pad = (64 - (pre + len(h) + 1) % 64) % 64
    h += b" " * pad + b"\n"
    return b"\x93NUMPY" + bytes([version, 0]) + struct.pack(lenfmt, len(h)) + h + data


def npy_read(path):
    """mpbench's --dump files: (rows, cols, values column-major as complex)."""
    b = open(path, "rb").read()
    hlen = struct.unpack("<H", b[8:10])[0]
    h = ast.literal_eval(b[10:10 + hlen].decode())
    code, parts = DTYPES[h["descr"]]
    m, n = h["shape"]
    v = struct.unpack("<%d%s" % (m * n * parts, code), b[10 + hlen:])
    vals = [complex(v[p * parts], v[p * parts + 1] if parts == 2 else 0) for p in range(m * n)]
    if not h["fortran_order"]:
        vals = [vals[i * n + j] for j in range(n) for i in range(m)]
    return m, n, vals


def mm_bytes(rows, field="real", banner=None, size=None, values=None):
    m, n = len(rows), len(rows[0])
    lines = [banner or "%%%%MatrixMarket matrix array %s general" % field, "% written by test_file_gen.py",
             size or "%d %d" % (m, n)]
    if values is None:
        values = []
        for j in range(n):
            for i in range(m):
                x = complex(rows[i][j])
                values.append("%r %r" % (x.real, x.imag) if field == "complex" else "%r" % x.real)
    return ("\n".join(lines + values) + "\n").encode()


def product(a, b):
    return [[sum(a[i][l] * b[l][j] for l in range(len(b))) for j in range(len(b[0]))] for i in range(len(a))]


def sha16(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()[:16]


def run(args, csv_path="out.csv", backend=("--backend", "host")):
    p = subprocess.run([MPB, "run", "--progress", "never", "--csv", csv_path] + list(backend) + args,
                       capture_output=True, text=True)
    rows = list(csv.DictReader(open(csv_path))) if p.returncode in (0, 1, 77) and os.path.exists(csv_path) else []
    return p.returncode, p.stderr, rows


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)


# m = 5, k = 7, n = 3; entries in -8..8: every product and sum is exact in fp32.
M, K, N = 5, 7, 3
A = [[(3 * i + 5 * l) % 17 - 8 for l in range(K)] for i in range(M)]
B = [[(7 * l + 2 * j) % 13 - 6 for j in range(N)] for l in range(K)]
AI = [[(i * l) % 5 - 2 for l in range(K)] for i in range(M)]
BI = [[(l + 4 * j) % 7 - 3 for j in range(N)] for l in range(K)]
AZ = [[complex(A[i][l], AI[i][l]) for l in range(K)] for i in range(M)]
BZ = [[complex(B[l][j], BI[l][j]) for j in range(N)] for l in range(K)]


def check_good(a_path, b_path, schemes, want, what, extra=()):
    dump = "dump_" + what
    code, err, rows = run(["-s", ",".join(schemes), "-g", "file", "-a", "a=" + a_path, "-a", "b=" + b_path,
                           "--dump", dump] + list(extra))
    if code != 0 or len(rows) != len(schemes):
        fail("%s: exit %d, %d rows: %s" % (what, code, len(rows), err.strip()[-300:]))
        return rows
    params = "a=%s a_sha256=%s b=%s b_sha256=%s" % (a_path, sha16(a_path), b_path, sha16(b_path))
    for r in rows:
        where = "%s %s" % (what, r["scheme"])
        if r["status"] != "ok" or (r["m"], r["n"], r["k"]) != (str(M), str(N), str(K)):
            fail("%s: status %s, shape %sx%sx%s" % (where, r["status"], r["m"], r["n"], r["k"]))
            continue
        if not r["gen_params"].startswith(params):
            fail("%s: gen_params '%s', want '%s...'" % (where, r["gen_params"], params))
        if r["err_fro_rel"] != "0" or r["grade"] != "A":
            fail("%s: err_fro_rel %s grade %s" % (where, r["err_fro_rel"], r["grade"]))
        m, n, c = npy_read(os.path.join(dump, r["case_id"], "C.npy"))
        flat = [complex(want[i][j]) for j in range(N) for i in range(M)]
        if (m, n) != (M, N) or c != flat:
            fail("%s: the dumped C is not A*B" % where)
    return rows


C_REAL, C_CPLX = product(A, B), product(AZ, BZ)
os.chdir(tempfile.mkdtemp())

# ---- every dtype, both orders, the three format versions ----
v = 0
for descr in ("<f8", "<f4", "<c16", "<c8"):
    cplx = descr.startswith("<c")
    for fortran in (False, True):
        v = v % 3 + 1
        tag = "%s_%s_v%d" % (descr[1:], "F" if fortran else "C", v)
        write("A_%s.npy" % tag, npy_bytes(AZ if cplx else A, descr, fortran, v))
        write("B_%s.npy" % tag, npy_bytes(BZ if cplx else B, descr, not fortran, v))
        check_good("A_%s.npy" % tag, "B_%s.npy" % tag, ["zgemm", "cgemm"] if cplx else ["dgemm", "sgemm"],
                   C_CPLX if cplx else C_REAL, tag)

# ---- Matrix Market, alone and beside an .npy; a C file given ----
write("A.mtx", mm_bytes(A))
write("B.mtx", mm_bytes(B))
write("AZ.mtx", mm_bytes(AZ, "complex"))
write("BZ.mtx", mm_bytes(BZ, "complex"))
write("C.npy", npy_bytes(C_REAL, "<f8"))
check_good("A.mtx", "B.mtx", ["dgemm", "sgemm"], C_REAL, "mm_real")
check_good("AZ.mtx", "BZ.mtx", ["zgemm", "cgemm3m"], C_CPLX, "mm_complex")
rows = check_good("A_f8_C_v1.npy", "B.mtx", ["dgemm"], C_REAL, "npy_and_mm", ["-a", "c=C.npy"])
if rows and not rows[0]["gen_params"].endswith("c=C.npy c_sha256=" + sha16("C.npy")):
    fail("c=C.npy: gen_params '%s' does not name it" % rows[0]["gen_params"])

# ---- the case string reruns the case, and refuses a changed file ----
if rows:
    case = rows[0]["case"].split()
    code, err, again = run(case, "again.csv", ())
    if code != 0 or len(again) != 1 or again[0]["case_id"] != rows[0]["case_id"]:
        fail("the case string did not rerun the case (exit %d): %s" % (code, err.strip()[-200:]))
    write("B.mtx", mm_bytes([[B[0][0] + 1] + B[0][1:]] + B[1:]))
    code, err, _ = run(case, "again2.csv", ())
    if code != 2 or "b=B.mtx" not in err or "SHA-256" not in err:
        fail("a changed B.mtx: exit %d, '%s'" % (code, err.strip()))
    write("B.mtx", mm_bytes(B))

# ---- fields and precisions a scheme cannot take: not_supported rows ----
A01 = [row[:] for row in A]
A01[2][3] = 0.1
write("A01.npy", npy_bytes(A01, "<f8"))
code, err, rows = run(["-s", "dgemm,sgemm,zgemm", "-g", "file", "-a", "a=A01.npy", "-a", "b=B.mtx"])
status = {r["scheme"]: (r["status"], r["note"]) for r in rows}
if status.get("dgemm", ("",))[0] != "ok":
    fail("float64 data with dgemm: %s" % (status.get("dgemm"),))
if status.get("sgemm", ("",))[0] != "not_supported" or "[2, 3]" not in status["sgemm"][1] or "float32" not in status["sgemm"][1]:
    fail("0.1 in float64 with sgemm: %s" % (status.get("sgemm"),))
if status.get("zgemm", ("",))[0] != "not_supported" or "real values" not in status["zgemm"][1]:
    fail("real files with zgemm: %s" % (status.get("zgemm"),))
code, err, rows = run(["-s", "dgemm", "-g", "file", "-a", "a=AZ.mtx", "-a", "b=BZ.mtx"])
if code != 77 or not rows or rows[0]["status"] != "not_supported" or "complex values" not in rows[0]["note"]:
    fail("complex files with dgemm: exit %d, %s" % (code, rows[0]["note"] if rows else err))

# ---- the shape options: checked against the files ----
code, err, rows = run(["-s", "dgemm", "-g", "file", "-a", "a=A.mtx", "-a", "b=B.mtx", "--m", "5", "--n", "3",
                       "--k", "7"])
if code != 0 or len(rows) != 1:
    fail("--m/--n/--k equal to the files' shape: exit %d" % code)
for opts, name in ((["--m", "6"], "--m 6"), (["--size", "5"], "--size 5"), (["--k", "7,8"], "--k 8")):
    code, err, _ = run(["-s", "dgemm", "-g", "file", "-a", "a=A.mtx", "-a", "b=B.mtx"] + opts, "none.csv")
    if code != 2 or name not in err or os.path.exists("none.csv"):
        fail("%s against 5x3x7 files: exit %d, '%s'" % (" ".join(opts), code, err.strip()))

# ---- --jsonl: a hash stays a string even when it is all digits ----
code, err, rows = run(["-s", "dgemm", "-g", "file", "-a", "a=A.mtx", "-a", "b=B.mtx", "--jsonl", "out.jsonl"])
gp = json.loads(open("out.jsonl").readline())["gen_params"] if code == 0 else {}
if gp != {"a": "A.mtx", "a_sha256": sha16("A.mtx"), "b": "B.mtx", "b_sha256": sha16("B.mtx")}:
    fail("--jsonl gen_params %s" % gp)

# ---- malformed files: exit 2, the file named, the CSV untouched ----
good_a = npy_bytes(A, "<f8")
hdr = "{'descr': '<f8', 'fortran_order': False, 'shape': (5, 7), }"
nan_a = bytearray(good_a)
nan_a[-8:] = struct.pack("<d", float("nan"))
values = ["%.6f" % B[l][j] for j in range(N) for l in range(K)]
bad = {
    "magic.npy": b"\x93NUMPX" + good_a[6:],
    "truncated.npy": good_a[:-3],
    "longer.npy": good_a + b"\0",
    "version.npy": good_a[:6] + b"\x04\x00" + good_a[8:],
    "unknown_key.npy": npy_bytes(A, "<f8", header=hdr.replace("fortran_order", "fortran_ordre")),
    "missing_key.npy": npy_bytes(A, "<f8", header="{'descr': '<f8', 'shape': (5, 7), }"),
    "not_a_dict.npy": npy_bytes(A, "<f8", header="['descr', '<f8']"),
    "bigendian.npy": npy_bytes(A, "<f8", header=hdr.replace("<f8", ">f8")),
    "object.npy": npy_bytes(A, "<f8", header=hdr.replace("<f8", "|O")),
    "int32.npy": npy_bytes(A, "<f8", header=hdr.replace("<f8", "<i4")),
    "structured.npy": npy_bytes(A, "<f8", header=hdr.replace("'<f8'", "[('x', '<f8')]")),
    "onedim.npy": npy_bytes(A, "<f8", header=hdr.replace("(5, 7)", "(35,)")),
    "shape_mismatch.npy": npy_bytes([row[:6] for row in A], "<f8"),
    "nan.npy": bytes(nan_a),
    "coordinate.mtx": mm_bytes(A, banner="%%MatrixMarket matrix coordinate real general"),
    "symmetric.mtx": mm_bytes(A, banner="%%MatrixMarket matrix array real symmetric"),
    "no_banner.mtx": mm_bytes(A, banner="%MatrixMarket matrix array real general"),
    "too_few.mtx": mm_bytes(B, values=values[:-1]),
    "too_many.mtx": mm_bytes(B, values=values + ["1"]),
    "not_a_number.mtx": mm_bytes(B, values=values[:4] + ["1,5"] + values[5:]),
    "inf.mtx": mm_bytes(B, values=values[:4] + ["inf"] + values[5:]),
}
where = {"magic.npy": "byte 0", "truncated.npy": "truncated", "longer.npy": "after the data",
         "version.npy": "version 4.0", "unknown_key.npy": "fortran_ordre", "missing_key.npy": "fortran_order", "not_a_dict.npy": "header dict",
         "bigendian.npy": "big-endian", "object.npy": "objects", "int32.npy": "<i4", "structured.npy": "structured",
         "onedim.npy": "1 dimension", "shape_mismatch.npy": "columns", "nan.npy": "nan",
         "coordinate.mtx": "line 1", "symmetric.mtx": "line 1", "no_banner.mtx": "byte 0", "too_few.mtx": "ends after",
         "too_many.mtx": "more values", "not_a_number.mtx": "line 8", "inf.mtx": "line 8"}
os.mkdir("folder.npy")
with open("keep.csv", "w") as f:
    f.write("keep\n")
cases = [(["-a", "a=" + (name if name.endswith(".npy") else "A.mtx"),
           "-a", "b=" + (name if name.endswith(".mtx") else "B.mtx")], name, where[name]) for name in bad]
cases += [(["-a", "a=A.mtx", "-a", "b=B.mtx", "-a", "c=A.mtx"], "c=A.mtx", "C = A·B is 5 x 3"),
          (["-a", "a=A.mtx"], "b=PATH", "give -a a=PATH and -a b=PATH"),
          (["-a", "a=A.mtx", "-a", "b=B.mtx", "-a", "b_sha256=0000"], "b=B.mtx", "SHA-256"),
          (["-a", "a=A.mtx", "-a", "b=no such.mtx"], "b=no such.mtx", "space"),
          (["-a", "a=A.mtx", "-a", "b=missing.mtx"], "b=missing.mtx", "No such file"),
          (["-a", "a=folder.npy", "-a", "b=B.mtx"], "a=folder.npy", "not a regular file"),
          (["-a", "a=A.mtx", "-a", "b=B.mtx", "-a", "d=D.npy"], "'d'", "a_sha256")]
for name, data in bad.items():
    write(name, data)
for args, name, what in cases:
    p = subprocess.run([MPB, "run", "-s", "dgemm", "-g", "file"] + args + ["--backend", "host", "--csv", "keep.csv"],
                       capture_output=True, text=True)
    if p.returncode != 2 or name not in p.stderr or what not in p.stderr:
        fail("%s: exit %d, want 2 and a message with '%s': %s" % (name, p.returncode, what, p.stderr.strip()))
    if open("keep.csv").read() != "keep\n" or os.path.exists("keep.csv.meta.json"):
        fail("%s: keep.csv or its sidecar was touched" % name)

# numpy's own files, where numpy is installed (Debian's python3-numpy)
try:
    import numpy as np
except ImportError:
    np = None
if np is not None:
    for version in ((1, 0), (2, 0), (3, 0)):
        for name, arr in (("np_A.npy", np.asfortranarray(np.array(A, dtype=np.float32))),
                          ("np_B.npy", np.array(B, dtype=np.float64))):
            with open(name, "wb") as f:
                np.lib.format.write_array(f, arr, version=version)
        check_good("np_A.npy", "np_B.npy", ["dgemm", "sgemm"], C_REAL, "numpy_v%d" % version[0])

print("test_file_gen: %d failure(s), %d malformed inputs refused" % (fails, len(cases)) if fails else
      "test_file_gen: ok (%d malformed inputs refused)" % len(cases))
sys.exit(1 if fails else 0)
