#!/usr/bin/env python3
"""sequences_table.py - the Markdown tables of bench/sequences.sh from the
counts bench/sequences.py wrote (docs/PERFORMANCE.md, "Where the VM
executes more instructions than LuaJIT").

Usage: sequences_table.py RESULTS.json [TOP]

Shares are of the executed instructions (register form, superinstructions
applied) of each benchmark, and "suite" is their mean over the benchmarks
(each benchmark weighs the same, whatever its size). A pair's or triple's
share is its executions per executed instruction: what fusing it into one
instruction would remove.
"""

import collections
import json
import re
import sys

# What LuaJIT's interpreter executes for the source construct of each
# fusion rule (bytecode names of `luajit -bl`; a compare and its JMP are
# one dispatch: the compare reads the JMP's target).
LUAJIT = {
    "argument moves: a call that names its arguments' slots":
        "MOV per local argument too (`MOV; TGETS; MOV; CALL` for `self:m(x)`)",
    "a local or constant named by arithmetic, a compare or a return, not moved":
        "one: ADDVN, SUBVV, ISEQN, RET1 name locals and numbers (ISLT: slots)",
    "a local or constant named by a store or another consumer, not moved":
        "two: KPRI or KSHORT; TSETV (`flags[k] = false`)",
    "a compare and the branch on its result": "one: ISLT/ISGE... with its JMP",
    "a result written to its local, not moved there": "CALL's result lands in its slot",
    "a field read into a compare-and-branch": "two: TGETS; ISLT",
    "a field read into arithmetic": "two: TGETS; ADDVN",
    "arithmetic into a field store": "two: ADDVN; TSETS",
    "an array element of a field (read or write)": "two: TGETS; TGETV (TSETV)",
    "an unconditional jump (a loop whose test is not an integer compare)":
        "LOOP and a JMP per `while` iteration too",
}


# What LuaJIT's interpreter executes for the source of a pair or triple,
# by pattern over its shape (from `luajit -bl` on the twins: towers.lua's
# move_top_disk, queens.lua's place_queen and get_row_column, bounce.lua's
# Ball:bounce, list.lua's is_shorter_than, sieve.lua's sieve).
LUAJIT_SEQ = (
    (r"^(T = [LK] ; )+T = call", "MOV or KSHORT per argument, TGETS for the method, CALL"),
    (r"^T = [LK] ; T = [LK]", "MOV or KSHORT per argument (a call's)"),
    (r"^T = getfield this.f ; T = arith @,K ; putfield", "TGETS; ADDVN; TSETS"),
    (r"^T = getfield this.f ; T = arith @,K$", "TGETS; ADDVN"),
    (r"^T = arith T,K ; putfield this.f, @$", "ADDVN; TSETS"),
    (r"^T = getfield \w+.f ; T = getfield", "TGETS; TGETS"),
    (r"^L = getfield L.f ; L = getfield L.f ; jmp", "TGETS; TGETS; JMP (then LOOP, ISF)"),
    (r"^L = getfield L.f ; L = getfield L.f", "TGETS; TGETS"),
    (r"^L = getfield L.f ; jmp", "TGETS; JMP"),
    (r"^T = getfield this.f ; jcmp @,K", "TGETS; KSHORT; ISGE (ISLT to ISGE compare two slots)"),
    (r"^T = getfield this.f ; jcmp", "TGETS; ISLT"),
    (r"^T = K ; astore", "KPRI or KSHORT; TSETV"),
    (r"^T = arith L,K ; T = K ; astore", "KPRI; TSETV (1-based: no k - 1)"),
    (r"^T = arith L,L ; L = arith @,K", "MULVV: doubles (the fixed point's mul; shr)"),
    (r"^L = arith L,K ; (L = arith L,K|loop jcmp L,K)",
     "none: math.sqrt, one call (the fixed point's square root loop)"),
    (r"^putfield this.f, T ; T = getfield this.f", "TSETS; TGETS"),
    (r"^T = getfield this.f ; T = aload @", "TGETS; TGETV"),
    (r"aload T,L ; jz @", "TGETV; ISF"),
)


def luajit_for(seq):
    for pat, text in LUAJIT_SEQ:
        if re.search(pat, seq):
            return text
    return ""


def family(s):
    """What a register instruction's shape does, in words."""
    for pat, name in (
        (r"^T = [LK@]$", "a move to a temporary"),
        (r"^L = [T@]$", "a move to a local"),
        (r"callvirt|call\(", "a call"),
        (r"getfield this", "a field of `this`"),
        (r"getfield", "a field of a local"),
        (r"putfield", "a field store"),
        (r"aload", "an array read"),
        (r"astore", "an array store"),
        (r"inc\+loop", "a counted loop's step and test"),
        (r"loop jcmp", "a rotated loop test"),
        (r"jcmp", "a compare-and-branch"),
        (r"jz", "a branch on a value"),
        (r"arith", "arithmetic"),
        (r"= cmp", "a compare to 0/1"),
        (r"retint|ret", "a return"),
        (r"^inc", "an increment"),
        (r"^jmp", "a jump"),
    ):
        if re.search(pat, s):
            return name
    return s


def gloss(seq):
    parts = seq.split(" ; ")
    fams = [family(p) for p in parts]
    if all(f == "a move to a temporary" for f in fams[:-1]) and fams[-1] == "a call":
        return "argument moves, then the call"
    if all(f == "a move to a temporary" for f in fams):
        return "moves to temporaries (a call's arguments)"
    words = [fams[0]]
    for p, f in zip(parts[1:], fams[1:]):
        words.append(("into " if "@" in p else "then ") + f)
    return " ".join(words)


def main():
    res = json.load(open(sys.argv[1]))
    top = int(sys.argv[2]) if len(sys.argv) > 2 else 15
    names = list(res)
    share = {k: collections.defaultdict(dict) for k in ("pairs", "triples", "fusions")}
    for b, v in res.items():
        for k in share:
            for s, w in v[k].items():
                share[k][s][b] = w / v["executed"]

    def mean(d):
        return sum(d.values()) / len(names)

    print("Per benchmark: source instructions (`vm run --cycles`), executed register-form "
          "instructions, LuaJIT's bytecodes (`luajit -joff`, count hook) at the same size, and "
          "the executed instructions if every fusion below were made.\n")
    print("| benchmark | inner | vm source | vm executed | luajit bytecodes | executed / luajit "
          "| after fusions / luajit |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for b, v in res.items():
        lj = v.get("luajit_bytecodes")
        after = v["executed"] - sum(v["fusions"].values())
        r = f"{v['executed'] / lj:.2f}" if lj else "-"
        ra = f"{after / lj:.2f}" if lj else "-"
        print(f"| {b} | {v['inner']} | {v['source_instructions']:,} | {v['executed']:,} "
              f"| {lj:,} | {r} | {ra} |" if lj else
              f"| {b} | {v['inner']} | {v['source_instructions']:,} | {v['executed']:,} | - | - | - |")

    if all("vm_machine" in v and "luajit_machine" in v for v in res.values()):
        print("\nMachine instructions (callgrind, a run at the same size without the counting) "
              "per executed instruction: the VM's per register-form instruction, LuaJIT's per "
              "bytecode.\n")
        print("| benchmark | vm machine instructions | per executed | luajit -joff machine "
              "instructions | per bytecode | vm / luajit |")
        print("|---|---:|---:|---:|---:|---:|")
        for b, v in res.items():
            lj = v["luajit_bytecodes"]
            print(f"| {b} | {v['vm_machine']:,} | {v['vm_machine'] / v['executed']:.1f} "
                  f"| {v['luajit_machine']:,} | {v['luajit_machine'] / lj:.1f} "
                  f"| {v['vm_machine'] / v['luajit_machine']:.2f} |")

    for k, n in (("pairs", top), ("triples", max(5, top // 2))):
        print(f"\nThe {n} most executed {k} (suite: mean share over the {len(names)} benchmarks; "
              "per benchmark: those where the share is at least 0.5%).\n")
        print("| # | executed sequence | what it is | suite % | per benchmark % | LuaJIT |")
        print("|---:|---|---|---:|---|---|")
        ranked = sorted(share[k].items(), key=lambda x: -mean(x[1]))[:n]
        for i, (s, per) in enumerate(ranked, 1):
            big = sorted(((w, b) for b, w in per.items() if w >= 0.005), reverse=True)
            cells = ", ".join(f"{b} {100 * w:.1f}" for w, b in big)
            print(f"| {i} | `{s}` | {gloss(s)} | {100 * mean(per):.2f} | {cells} "
                  f"| {luajit_for(s)} |")

    print("\nFusions: the executed instructions each rule would remove (greedy, one rule per "
          "instruction; bench/sequences.py `fusions`), and what LuaJIT's interpreter executes "
          "for the same source.\n")
    print("| fusion | suite % | largest (benchmark %) | LuaJIT |")
    print("|---|---:|---|---|")
    ranked = sorted(share["fusions"].items(), key=lambda x: -mean(x[1]))
    for s, per in ranked:
        big = sorted(((w, b) for b, w in per.items()), reverse=True)[:3]
        cells = ", ".join(f"{b} {100 * w:.1f}" for w, b in big)
        print(f"| {s} | {100 * mean(per):.2f} | {cells} | {LUAJIT.get(s, '')} |")
    total = [sum(v["fusions"].values()) / v["executed"] for v in res.values()]
    print(f"| all of them | {100 * sum(total) / len(total):.2f} | | |")


if __name__ == "__main__":
    main()
