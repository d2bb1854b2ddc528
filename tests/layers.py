#!/usr/bin/python3
"""Fails when a folder includes a folder above it (docs/architecture.md).

Each folder has a rank; an #include from a folder to a folder of a higher
rank, or between two folders of the same rank, is a violation. A folder
that holds sources and is not in the table is a failure too: a new folder
is placed in the table on purpose."""
import os
import re
import sys

# Lower rank: further down. Folders of one rank must not include each other.
RANKS = {
    'core/base': 0,
    'core/sys': 1,
    'core/model': 2,
    'core/pods': 3,
    'core/persist': 3,
    'core/linux': 4,
    'core/sim': 4,
    'core/snapshot': 5,
    'core/checks': 6,
    'core/actions': 7,
    'bench': 8,
    'core/history': 9,
    'tui/base': 10,
    'tui/render': 11,
    'tui/bench': 12,
    'tui/console': 13,
    'tui/commands': 14,
    'tui': 15,
}
INC = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..')
    root = os.path.abspath(root)
    bad = []
    for top in ('core', 'bench', 'tui'):
        for d, _, files in os.walk(os.path.join(root, top)):
            rel_dir = os.path.relpath(d, root)
            srcs = [f for f in files if f.endswith(('.c', '.h'))]
            if not srcs:
                continue
            if rel_dir not in RANKS:
                bad.append(f'{rel_dir}: a folder of sources not placed in tests/layers.py')
                continue
            for f in srcs:
                path = os.path.join(d, f)
                with open(path, encoding='utf-8') as fh:
                    text = fh.read()
                for inc in INC.findall(text):
                    local = os.path.normpath(os.path.join(d, inc))
                    target = local if os.path.exists(local) else os.path.join(root, inc)
                    if not os.path.exists(target):
                        continue
                    tdir = os.path.relpath(os.path.dirname(target), root)
                    if tdir == rel_dir or tdir not in RANKS:
                        continue
                    if RANKS[tdir] >= RANKS[rel_dir]:
                        bad.append(f'{rel_dir}/{f}: includes "{inc}" of {tdir}, '
                                   f'{"a folder above it" if RANKS[tdir] > RANKS[rel_dir] else "a folder beside it"}')
    for b in bad:
        print(b)
    print(f'layers: {len(bad)} include(s) against the folder order')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
