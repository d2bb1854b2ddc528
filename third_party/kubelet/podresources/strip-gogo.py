#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes api.proto without its gogoproto import and options: protoc-c and
grpc_tools.protoc would need gogo.proto to read them, and they only change the
Go code upstream generates, never a byte on the wire.

    strip-gogo.py IN OUT
"""
import re
import sys


def strip(text):
    out = []
    for line in text.splitlines():
        if re.match(r'\s*import\s+"github\.com/gogo/protobuf/gogoproto/gogo\.proto"\s*;', line):
            continue
        if re.match(r'\s*option\s+\(gogoproto\.[A-Za-z_]+\)', line):
            continue
        # A field's options, when all of them are gogoproto's.
        m = re.match(r'(.*?)\s*\[(.*)\]\s*;(.*)$', line)
        if m and all(o.strip().startswith('(gogoproto.') for o in split_options(m.group(2))):
            line = m.group(1) + ';' + m.group(3)
        if 'gogoproto' in line:
            sys.exit(f'strip-gogo: a gogoproto use this script does not know: {line.strip()}')
        out.append(line)
    return '\n'.join(out) + '\n'


def split_options(s):
    # Options are separated by commas outside quotes ("a,omitempty").
    parts, cur, quoted = [], '', False
    for ch in s:
        if ch == '"':
            quoted = not quoted
        if ch == ',' and not quoted:
            parts.append(cur)
            cur = ''
        else:
            cur += ch
    parts.append(cur)
    return parts


def main():
    if len(sys.argv) != 3:
        sys.exit('usage: strip-gogo.py IN OUT')
    with open(sys.argv[1], encoding='utf-8') as f:
        text = strip(f.read())
    with open(sys.argv[2], 'w', encoding='utf-8') as f:
        f.write(text)


if __name__ == '__main__':
    main()
