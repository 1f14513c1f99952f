#!/usr/bin/env python3
"""Offline planning with the registers of a harness's own compiled code (issue #13), no GPU.

stencil5's tuner declares no registers: `plan --profile h100` must read them from its sm_90
cubin and show exactly what ptxas reported when it compiled the tuner (its report is kept next
to the object, scripts/capture-ptxas.sh), and the header must say where they come from. On an
architecture the program was not built for, stencil5 (nothing declared) is refused naming the
architecture, what the program has and the fix, and reduction (registers declared) falls back
to its declaration and says why.

Usage: compiled_registers.py STENCIL5_TUNER STENCIL5_PTXAS_REPORT REDUCTION_TUNER SOURCE_DIR
"""
import json
import os
import re
import subprocess
import sys
import tempfile

stencil5, report, reduction, source_dir = sys.argv[1:5]


def fail(msg):
    sys.exit(f"compiled_registers: {msg}")


def run(*args):
    return subprocess.run(args, capture_output=True, text=True, timeout=60)


# ptxas's report: "Compiling entry function '<mangled>' for 'sm_90'" then "Used R registers".
expected = {}
current = None
with open(report) as f:
    for line in f:
        m = re.search(r"Compiling entry function '([^']+)' for 'sm_(\d+)'", line)
        if m:
            current = (m.group(1), int(m.group(2)))
            continue
        m = re.search(r"Used (\d+) registers", line)
        if m and current:
            expected[current] = int(m.group(1))
            current = None
rows_regs = {}
for (mangled, arch), regs in expected.items():
    m = re.search(r"stencil5_kernelILi(\d+)E", mangled)
    if m and arch == 90:
        rows_regs[int(m.group(1))] = regs
if sorted(rows_regs) != [1, 2, 4]:
    fail(f"ptxas's report {report} has no sm_90 entry for rows 1, 2 and 4: {expected}")

problem = ["--kernel", "stencil5", "--problem", "nx=4096,ny=4096"]
p = run(stencil5, "plan", "--profile", "h100", *problem, "--format", "json")
if p.returncode != 0:
    fail(f"plan --profile h100 exited {p.returncode}: {p.stderr}")
plans = json.loads(p.stdout)["plans"]
candidates = [c for plan in plans for c in plan["candidates"]]
for plan in plans:
    if not plan.get("registers_from", "").startswith("its compiled code (the sm_90 cubin of "):
        fail(f"the JSON plan's registers_from is {plan.get('registers_from')!r}")
if not candidates:
    fail("the plan has no candidates")
for c in candidates:
    rows = int(c["params"]["rows"])
    if c["registers"] != rows_regs[rows]:
        fail(f"{c['label']}: plan registers {c['registers']}, ptxas reported {rows_regs[rows]}")

text = run(stencil5, "plan", "--profile", "h100", *problem)
origin = "this family: the registers of its compiled code (the sm_90 cubin of "
if text.returncode != 0 or origin not in text.stdout:
    fail(f"the plan's header does not say '{origin}':\n{text.stdout}{text.stderr}")
if os.path.realpath(stencil5) not in text.stdout:
    fail(f"the plan's header does not name the program {stencil5}:\n{text.stdout}")

# A device whose architecture (10.0) the harness was not built for: the h100 profile with
# another compute capability.
with open(os.path.join(source_dir, "configs", "profiles", "h100.toml")) as f:
    profile = re.sub(r'compute_capability = "9.0"', 'compute_capability = "10.0"', f.read())
    profile = profile.replace('profile = "h100"', 'profile = "sm100-test"')
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "sm100.toml")
    with open(path, "w") as f:
        f.write(profile)
    p = run(stencil5, "plan", "--profile", path, *problem)
    if p.returncode != 2:
        fail(f"stencil5 on sm_100 exited {p.returncode}, not 2:\n{p.stdout}{p.stderr}")
    for words in ["has no sm_100 code", "add 100 to CUDA_ARCHITECTURES", "sm_90",
                  "KernelConfig::registers"]:
        if words not in p.stderr:
            fail(f"stencil5 on sm_100 did not say '{words}':\n{p.stderr}")
    p = run(reduction, "plan", "--profile", path, "--kernel", "reduction", "--problem", "n=4194304")
    if p.returncode != 0:
        fail(f"reduction on sm_100 exited {p.returncode}:\n{p.stdout}{p.stderr}")
    for words in ["this family: the registers of its declaration (KernelConfig::registers), since",
                  "has no sm_100 code", "add 100 to CUDA_ARCHITECTURES"]:
        if words not in p.stdout:
            fail(f"reduction on sm_100 did not say '{words}':\n{p.stdout}")
print(f"compiled_registers: {len(candidates)} stencil5 candidates carry ptxas's sm_90 registers "
      f"{rows_regs}; sm_100 refused (stencil5) and declared (reduction) with the fix")
