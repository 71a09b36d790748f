#!/usr/bin/env python3
"""Relabels the credential corpora by the decision on identifiers that open nothing by themselves
(docs/decisions.md, "Credentials"): an AWS access key id and the apiKey of a Firebase web
configuration are not credentials. Their marks are taken off; a text left without a mark moves
to the look-alike file of its set, with the comment line before it. Run after the generators;
running it again changes nothing. Prints how many lines changed per file."""
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SETS = [("credential_secret.txt", "credential_lookalike.txt"),
        ("heldout_credential_secret.txt", "heldout_credential_lookalike.txt")] + \
       [(f"heldout{n}_secret.txt", f"heldout{n}_lookalike.txt") for n in range(2, 10)]
AWS_ID = re.compile(r"(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}")
GOOGLE_KEY = re.compile(r"AIza[0-9A-Za-z_\-]{35}")
FIREBASE = ("authdomain", "firebaseconfig", "messagingsenderid")
MARK = re.compile(r"«([^»]*)»")


def public(value, line):
    if AWS_ID.fullmatch(value):
        return True
    return bool(GOOGLE_KEY.fullmatch(value)) and any(w in line.lower() for w in FIREBASE)


def relabel(secret_name, lookalike_name):
    sp, lp = HERE / secret_name, HERE / lookalike_name
    if not sp.exists():
        return
    lines = sp.read_text().split("\n")
    kept, moved, unmarked = [], [], 0
    for line in lines:
        if line.startswith("#") or "«" not in line:
            kept.append(line)
            continue
        new = MARK.sub(lambda m: m.group(1) if public(m.group(1), line) else m.group(0), line)
        if new == line:
            kept.append(line)
            continue
        if "«" in new:
            unmarked += 1
            kept.append(new)
            continue
        block = [new]
        if kept and kept[-1].startswith("# "):
            block.insert(0, kept.pop())
        moved.append(block)
    if not unmarked and not moved:
        print(f"{secret_name}: unchanged")
        return
    sp.write_text("\n".join(kept))
    if moved:
        text = lp.read_text()
        if not text.endswith("\n"):
            text += "\n"
        text += f"# Moved from {secret_name} by relabel_public.py: identifiers that open nothing by themselves.\n"
        for block in moved:
            text += "\n".join(block) + "\n"
        lp.write_text(text)
    print(f"{secret_name}: {unmarked} lines lost a mark and kept others; {len(moved)} moved to {lookalike_name}")


if __name__ == "__main__":
    for s, l in SETS:
        relabel(s, l)
    sys.exit(0)
