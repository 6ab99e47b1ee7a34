"""sass_loops.py: the loops of a SASS listing, for the tools that read them (imported, not run).

A loop is a backward branch and its target. `nvdisasm -c` names branch targets by labels
(`.L_x_N:` before the target's address); `cuobjdump -sass` writes the target's address.
Both write each instruction as `/*ADDR*/ [@P] OPCODE operands ;`."""
import re

_INSTRUCTION = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]+)([^;]*);")


def instructions(text):
    """[(address, opcode, the whole instruction)] in the order of the listing."""
    return [(int(m.group(1), 16), m.group(3), m.group(0)) for m in _INSTRUCTION.finditer(text)]


def nvdisasm_functions(text):
    """[(name, body)] of an `nvdisasm -c` listing, one per `.text.NAME` section."""
    parts = re.split(r"//-+ \.text\.(\S+) -+", text)
    return list(zip(parts[1::2], parts[2::2]))


def _nvdisasm_labels(body):
    """{label number: the address of the instruction after it}."""
    labels, pending = {}, []
    for line in body.splitlines():
        m = re.match(r"\s*\.L_x_(\d+):", line)
        if m:
            pending.append(m.group(1))
            continue
        a = re.search(r"/\*([0-9a-f]{4,})\*/", line)
        if a and pending:
            labels.update((p, int(a.group(1), 16)) for p in pending)
            pending = []
    return labels


def loops(body, listing="nvdisasm"):
    """[(start, end, [(address, opcode, instruction)])]: each backward branch of one function's
    body (`listing`: "nvdisasm" or "cuobjdump") and the instructions from its target to it."""
    ins = instructions(body)
    labels = _nvdisasm_labels(body) if listing == "nvdisasm" else {}
    found = []
    for a, op, full in ins:
        if not op.startswith("BRA"):
            continue
        rest = full.split(op, 1)[1]
        if listing == "nvdisasm":
            m = re.search(r"\.L_x_(\d+)", rest)
            target = labels.get(m.group(1)) if m else None
        else:
            m = re.search(r"0x([0-9a-f]+)", rest)
            target = int(m.group(1), 16) if m else None
        if target is not None and target <= a:
            found.append((target, a, [x for x in ins if target <= x[0] <= a]))
    return found
