#!/usr/bin/env python3
"""sequences.py - which short sequences of executed register-form
instructions the VM runs most over the Are We Fast Yet suite, and how many
executed instructions fusing each would remove (docs/PERFORMANCE.md,
"Where the VM executes more instructions than LuaJIT"). bench/sequences.sh
runs it; see there for the usage.

How the counts are made. The VM has no per-pc counter, so each basic block
of the source (a method's entry, a label, the instruction after a branch)
is counted by instrumenting a copy of the program: `call __bb_K` and `pop`
before the block's first instruction, `__bb_K` an empty method, and the
exhaustive profile's `calls` of `__bb_K` is the block's count. Every
register-form instruction of `vm disasm` (of the original program) takes
the count of the source block holding its line. The check: the source
instructions of each block times its count, summed, must equal what
`vm run --cycles` counts for the original program; the script stops if
they differ.

The plain interpreter runs the superinstruction copy of the code
(vm/src/superinstr.rs), which the script derives from the disassembly
with the same three rules: a backward `jmp -> t` onto a test `jCC a, b ->
jmp+1` becomes that test (`loop jCC`), so the test at `t` runs only on
entry; `inc a 1` before such a jump, testing `a` with `jgt`/`jge`, becomes
`inc+loop jCC` and the jump no longer runs; `d = INT; ret d` becomes
`retint`. Sequences are of these executed instructions, consecutive
within one basic block, weighted by the block's count.
"""

import collections
import json
import os
import re
import subprocess
import sys
import tempfile

BRANCH = re.compile(r"^(jmp|jz|jnz|jeq|jne|jlt|jle|jgt|jge)\b")
CMPJ = {"jlt", "jle", "jgt", "jge", "jeq", "jne"}
ARITH = {"add", "sub", "mul", "div", "rem", "and", "or", "xor", "shl", "shr"}
CMP = {"eq", "ne", "lt", "le", "gt", "ge"}


def run(cmd):
    return subprocess.run(cmd, check=True, capture_output=True, text=True)


# --- the source: methods, instructions, blocks ------------------------------


def source_instructions(lines):
    """Per method: [(line_no, label, instr_text)] of its instructions
    (line numbers from 1), and the line of its `.method`."""
    methods, cur = [], None
    for no, raw in enumerate(lines, 1):
        text = strip_comment(raw).strip()
        if not text:
            continue
        if text.startswith(".method"):
            cur = {"line": no, "name": text.split()[1].split("(")[0], "instrs": []}
            methods.append(cur)
            continue
        if text.startswith(".end"):
            cur = None
            continue
        if cur is None or text.startswith("."):
            continue
        m = re.match(r"^([A-Za-z_][A-Za-z0-9_]*):\s*(.*)$", text)
        label, instr = (m.group(1), m.group(2)) if m else (None, text)
        cur["instrs"].append([no, label, instr])
    return methods


def strip_comment(s):
    out, in_str, esc = [], False, False
    for ch in s:
        if in_str:
            out.append(ch)
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
            out.append(ch)
        elif ch == ";":
            break
        else:
            out.append(ch)
    return "".join(out)


def blocks_of(method):
    """The indices (into method["instrs"]) where a basic block starts."""
    starts, after_branch = set(), True
    pending_label = False
    for i, (_, label, instr) in enumerate(method["instrs"]):
        if not instr:  # a label alone: it names the next instruction
            pending_label = pending_label or label is not None
            continue
        op = instr.split()[0]
        if after_branch or label is not None or pending_label:
            starts.add(i)
        pending_label = False
        after_branch = op in ("jz", "jnz", "jmp", "ret", "throw", "halt") or op in CMPJ
    return sorted(starts)


def instrument(lines, methods):
    """The instrumented program's text and the blocks: [(method, [source
    lines of its instructions])], block K counted by `__bb_K`."""
    insert, blocks = {}, []
    for m in methods:
        starts = blocks_of(m)
        real = [i for i, x in enumerate(m["instrs"]) if x[2]]
        for k, s in enumerate(starts):
            end = starts[k + 1] if k + 1 < len(starts) else len(m["instrs"])
            block_lines = [m["instrs"][i][0] for i in real if s <= i < end]
            insert[m["instrs"][s][0]] = len(blocks)
            blocks.append((m["name"], block_lines))
    out = []
    for no, raw in enumerate(lines, 1):
        if no in insert:
            k = insert[no]
            text = strip_comment(raw).strip()
            mm = re.match(r"^([A-Za-z_][A-Za-z0-9_]*):\s*(.*)$", text)
            if mm:
                out.append(f"{mm.group(1)}:")
                raw = "  " + mm.group(2)
            out += [f"  call __bb_{k}", "  pop"]
        out.append(raw.rstrip("\n"))
    for k in range(len(blocks)):
        out += [f".method __bb_{k}()", "  push 0", "  ret", ".end"]
    return "\n".join(out) + "\n", blocks


# --- the register form ---------------------------------------------------------


def disasm(vm, prog):
    """Per method name: [(line, text)] of its register instructions."""
    out, cur = {}, None
    for raw in run([vm, "disasm", prog]).stdout.splitlines():
        m = re.match(r"^(\S+)\(.*\)\s+;", raw)
        if m:
            cur = out.setdefault(m.group(1), [])
            continue
        m = re.match(r"^\s+(\d+)\s+line (\d+)\s+(.*)$", raw)
        if m and cur is not None:
            assert int(m.group(1)) == len(cur)
            cur.append((int(m.group(2)), m.group(3).strip()))
    return out


def parse(text):
    """(yieldpoint, dest, op, operands, target) of one register instruction."""
    yp = None
    m = re.match(r"^yieldpoint (\w+)(; )?(.*)$", text)
    if m:
        yp, text = m.group(1), m.group(3)
        if not text:
            return yp, None, "yieldpoint", [], None
    target = None
    m = re.match(r"^(.*) -> (\d+)$", text)
    if m:
        text, target = m.group(1), int(m.group(2))
    dest = None
    m = re.match(r"^([A-Za-z_]\w*) = (.*)$", text)
    if m:
        dest, text = m.group(1), m.group(2)
    if re.match(r'^(-?\d+|".*"|null)$', text):
        return yp, dest, "const", [text], target
    if re.match(r"^[A-Za-z_]\w*$", text) and dest is not None:
        return yp, dest, "move", [text], target
    op, _, rest = text.partition(" ")
    if op in ("getfield", "putfield"):
        obj = rest.split(".")[0]
        args = [obj] + [a.strip() for a in rest.split(",")[1:]]
    elif op in ("call", "callvirt", "spawn"):
        args = [a.strip() for a in rest[rest.index("(") + 1 : -1].split(",") if a.strip()]
    elif op in ("aload", "astore"):
        m = re.match(r"^(\w+)\[(\w+)\](?:, (\S+))?$", rest)
        args = [g for g in m.groups() if g is not None]
    elif op in ("new", "getglobal", "instanceof", "isclass"):
        args = [rest.split(",")[0]] if op in ("instanceof", "isclass") else []
    elif op == "putglobal":
        args = [rest.split(",")[1].strip()]
    else:
        args = [a.strip() for a in rest.replace(",", " ").split() if a.strip()]
        if op == "inc":
            args = args[:1]
    return yp, dest, op, args, target


def kind(operand):
    if re.match(r'^(-?\d+|".*"|null)$', operand):
        return "K"
    if re.match(r"^t\d+$", operand):
        return "T"
    return "L"


def shape(ins, prev_dest=None):
    """A register instruction with its operands by kind: L a local, K a
    constant, T a temporary, @ the previous instruction's result."""
    _, dest, op, args, _ = ins
    fam = op
    if op in CMPJ:
        fam = "jcmp"
    elif op in ("jz", "jnz"):
        fam = "jz"
    elif op in ARITH:
        fam = "arith"
    elif op in CMP:
        fam = "cmp"
    elif op.startswith("loop ") or op.startswith("inc+loop"):
        fam = op.split()[0] + " jcmp"

    def k(a):
        return "@" if prev_dest is not None and a == prev_dest else kind(a)

    if op in ("const", "move"):
        s = f"{kind(dest)} = {k(args[0])}"
    elif op in ("call", "callvirt"):
        s = f"{op}({len(args)})"
    elif op in ("getfield",):
        s = f"getfield {'this' if args[0] == 'this' else k(args[0])}.f"
    elif op == "putfield":
        s = f"putfield {'this' if args[0] == 'this' else k(args[0])}.f, {k(args[1])}"
    else:
        s = f"{fam} " + ",".join(k(a) for a in args) if args else fam
    if dest is not None and op not in ("const", "move"):
        s = f"{kind(dest)} = {s}"
    return s.strip()


# --- executed instructions -------------------------------------------------------


def executed(code, counts):
    """The executed instructions of one method as the plain interpreter runs
    them: [(pc, parsed instr, exec count)], superinstructions applied."""
    ins = [parse(t) for _, t in code]
    n = list(counts)
    ops = [i[2] for i in ins]
    exe = list(ins)
    for pc, i in enumerate(ins):
        if i[2] == "yieldpoint":
            n[pc] = 0  # a call takes its callee's prologue inline
    for j, (yp, _, op, _, t) in enumerate(ins):
        if op == "jmp" and t is not None and t < j and ins[t][2] in {"jlt", "jle", "jgt", "jge"}:
            if ins[t][4] == j + 1:
                test = ins[t]
                n[t] -= counts[j]  # the test runs at the jump
                exe[j] = (yp, None, "loop " + test[2], test[3], t)
                prev = ins[j - 1]
                if (
                    prev[2] == "inc" and test[2] in ("jgt", "jge")
                    and test[3][0] == prev[3][0] and code[j - 1][1].endswith(" 1")
                ):
                    exe[j - 1] = (yp, None, "inc+loop " + test[2], test[3], t)
                    n[j] -= counts[j]
    for p in range(len(ins) - 1):
        d = ins[p]
        if ops[p] == "const" and re.match(r"^-?\d+$", d[3][0]) and abs(int(d[3][0])) < 2**31:
            r = ins[p + 1]
            if r[2] == "ret" and r[3] == [d[1]]:
                exe[p] = (r[0], None, "retint", d[3], None)
                n[p + 1] -= counts[p]
    return [(pc, exe[pc], n[pc]) for pc in range(len(ins))]


def block_ends(code):
    """Register pcs where a new basic block starts (targets, after branches)."""
    starts = {0}
    for pc, (_, t) in enumerate(code):
        p = parse(t)
        if p[4] is not None:
            starts.add(p[4])
            starts.add(pc + 1)
        if p[2] in ("ret", "throw", "halt"):
            starts.add(pc + 1)
    return starts


# --- per benchmark ---------------------------------------------------------------


def measure(vm, prog, inner):
    lines = open(prog).read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    methods = source_instructions(lines)
    text, blocks = instrument(lines, methods)
    with tempfile.TemporaryDirectory() as d:
        inst = os.path.join(d, os.path.basename(prog))
        open(inst, "w").write(text)
        prof = os.path.join(d, "p.json")
        run([vm, "run", inst, "--set", f"inner={inner}", "--profile=exhaustive",
             f"--profile-out={prof}"])
        calls = {m["name"]: m["calls"] for m in json.load(open(prof))["methods"]}
    bcount = [calls.get(f"__bb_{k}", 0) for k in range(len(blocks))]
    want = run([vm, "run", prog, "--set", f"inner={inner}", "--cycles"]).stderr
    want = int(re.search(r"instructions: (\d+)", want).group(1))
    got = sum(c * len(b[1]) for c, b in zip(bcount, blocks))
    if got != want:
        sys.exit(f"sequences.py: {prog}: block counts give {got} source instructions, "
                 f"vm run --cycles {want}: the instrumentation is wrong")
    # line -> block, per method
    by_method = collections.defaultdict(list)
    for k, (name, ls) in enumerate(blocks):
        if ls:
            by_method[name].append((ls[0], k))
    dis = disasm(vm, prog)
    seqs = [collections.Counter() for _ in range(3)]
    total = 0
    fused = collections.Counter()
    for name, code in dis.items():
        starts = sorted(by_method.get(name, []))
        if not starts:
            continue

        def count_of(line):
            k = starts[0][1]
            for first, kk in starts:
                if first <= line:
                    k = kk
            return bcount[k]

        counts = [count_of(line) for line, _ in code]
        exe = executed(code, counts)
        bstart = block_ends(code)
        run_ = []
        for pc, ins, c in exe:
            if pc in bstart:
                tally(run_, seqs, fused)
                run_ = []
            if c > 0:
                total += c
                run_.append((ins, c))
        tally(run_, seqs, fused)
    return want, total, seqs, fused


def tally(block, seqs, fused):
    """Counts a block's singles, pairs and triples, and what the fusion rules
    of `fusions` would remove from it."""
    for n in (1, 2, 3):
        for i in range(len(block) - n + 1):
            part = block[i : i + n]
            w = min(c for _, c in part)
            names, prev = [], None
            for ins, _ in part:
                names.append(shape(ins, prev))
                prev = ins[1]
            seqs[n - 1][" ; ".join(names)] += w
    fusions(block, fused)


def reads(ins, slot):
    return slot is not None and slot in ins[3]


# The fusion rules, by name: what each would make one instruction.
ARGS = "argument moves: a call that names its arguments' slots"
OPERAND = "a local or constant named by arithmetic, a compare or a return, not moved"
OPERAND_STORE = "a local or constant named by a store or another consumer, not moved"
CMPBR = "a compare and the branch on its result"
RESULT = "a result written to its local, not moved there"
FIELD_BRANCH = "a field read into a compare-and-branch"
FIELD_ARITH = "a field read into arithmetic"
ARITH_FIELD = "arithmetic into a field store"
FIELD_ARRAY = "an array element of a field (read or write)"
JUMP = "an unconditional jump (a loop whose test is not an integer compare)"


def fusions(block, fused):
    """Greedy, in order: each rule removes one executed instruction per
    execution; an instruction is removed by one rule at most."""
    used = [False] * len(block)
    for i, (a, ca) in enumerate(block):
        if a[2] == "jmp":
            fused[JUMP] += ca
    for i in range(len(block) - 1):
        (a, ca), (b, cb) = block[i], block[i + 1]
        w = min(ca, cb)
        if used[i]:
            continue
        op_a, op_b = a[2], b[2]
        rule = None
        if op_a in ("const", "move") and kind(a[1]) == "T" and reads(b, a[1]):
            if op_b in ("call", "callvirt"):
                # every move into the argument slots before the call
                j = i
                while j >= 0 and not used[j] and block[j][0][2] in ("const", "move") \
                        and kind(block[j][0][1]) == "T" and block[j][0][1] in b[3]:
                    used[j] = True
                    fused[ARGS] += min(block[j][1], cb)
                    j -= 1
                continue
            rule = OPERAND if op_b in ARITH | CMP | CMPJ | {"jz", "jnz", "ret"} else OPERAND_STORE
        elif op_b == "move" and kind(a[1] or "") == "T" and b[3] == [a[1]] and kind(b[1]) == "L":
            rule = RESULT
        elif op_a in CMP and op_b in ("jz", "jnz") and reads(b, a[1]):
            rule = CMPBR
        elif op_a == "getfield" and reads(b, a[1]) and op_b in CMPJ | {"jz", "jnz"}:
            rule = FIELD_BRANCH
        elif op_a == "getfield" and reads(b, a[1]) and op_b in ARITH:
            rule = FIELD_ARITH
        elif op_a in ARITH and op_b == "putfield" and reads(b, a[1]):
            rule = ARITH_FIELD
        elif op_a == "getfield" and op_b in ("aload", "astore") and b[3][0] == a[1]:
            rule = FIELD_ARRAY
        if rule:
            used[i] = True
            fused[rule] += w


# LuaJIT's bytecodes: `luajit -joff` with a count hook every 100
# instructions (as bench/bytecode_counts.sh counts them).
HOOK = """local n = 0
local script = table.remove(arg, 1)
arg[0] = script
debug.sethook(function() n = n + 1 end, "", 100)
dofile(script)
debug.sethook()
io.stderr:write(string.format("bytecodes %d\\n", n * 100))
"""


def luajit_bytecodes(prog, inner):
    twin = os.path.join(os.path.dirname(prog), "peers", "luajit", os.path.basename(prog)[:-3] + ".lua")
    if not os.path.exists(twin) or subprocess.run(["sh", "-c", "command -v luajit"],
                                                  capture_output=True).returncode:
        return None
    with tempfile.NamedTemporaryFile("w", suffix=".lua") as h:
        h.write(HOOK)
        h.flush()
        err = run(["luajit", "-joff", h.name, twin, "1", str(inner)]).stderr
    return int(re.search(r"bytecodes (\d+)", err).group(1))


def machine_instructions(cmd):
    """callgrind's count of the machine instructions `cmd` executes."""
    err = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"] + cmd,
                         capture_output=True, text=True, check=True).stderr
    return int(re.search(r"Collected : (\d+)", err).group(1))


def per_dispatch(vm, prog, inner, twin_bytecodes):
    """With CALLGRIND=1: machine instructions of a run of the VM and of
    `luajit -joff` on the twin (none counted), the same size."""
    if os.environ.get("CALLGRIND") != "1":
        return {}
    twin = os.path.join(os.path.dirname(prog), "peers", "luajit", os.path.basename(prog)[:-3] + ".lua")
    out = {"vm_machine": machine_instructions([vm, "run", prog, "--set", f"inner={inner}"])}
    if twin_bytecodes:
        out["luajit_machine"] = machine_instructions(["luajit", "-joff", twin, "1", str(inner)])
    return out


def main():
    vm, out_json = sys.argv[1], sys.argv[2]
    progs = sys.argv[3:]
    result = {}
    for spec in progs:
        prog, inner = spec.rsplit(":", 1)
        name = os.path.basename(prog)[:-3]
        print(f"== {name} (inner={inner})", file=sys.stderr)
        want, total, seqs, fused = measure(vm, prog, inner)
        result[name] = {"inner": int(inner), "source_instructions": want, "executed": total,
                        "luajit_bytecodes": luajit_bytecodes(prog, inner),
                        **per_dispatch(vm, prog, inner, True),
                        "singles": dict(seqs[0]), "pairs": dict(seqs[1]),
                        "triples": dict(seqs[2]), "fusions": dict(fused)}
    json.dump(result, open(out_json, "w"), indent=0)


if __name__ == "__main__":
    main()
