#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""deploy/kubernetes/monitoring/prometheusrule.yaml is deploy/prometheus/ibvf.rules.yml
as a Prometheus Operator PrometheusRule: its spec.groups are the rules file's
groups, no other copy is edited by hand.

  prometheusrule.py SRCDIR           exit 1 and one line when they differ
  prometheusrule.py SRCDIR --write   write the PrometheusRule from the rules"""
import os
import sys

import yaml

HEAD = """\
# GENERATED from deploy/prometheus/ibvf.rules.yml by
#   tests/deploy/prometheusrule.py . --write
# (the test deploy-kubernetes fails when the two differ): ibvf's alert rules
# for a Prometheus Operator (kube-prometheus-stack); its ruleSelector must
# match the labels below (the stack's default: release: <its release name>).
"""


class _Dumper(yaml.SafeDumper):
    """Block sequences indented under their key, multi-line strings as `|`."""

    def increase_indent(self, flow=False, indentless=False):
        return super().increase_indent(flow, False)


_Dumper.add_representer(str, lambda d, s: d.represent_scalar(
    "tag:yaml.org,2002:str", s, style="|" if "\n" in s else None))


def rule_object(groups):
    return {"apiVersion": "monitoring.coreos.com/v1", "kind": "PrometheusRule",
            "metadata": {"name": "ibvf", "labels": {"app.kubernetes.io/name": "ibvf",
                                                    "prometheus": "ibvf"}},
            "spec": {"groups": groups}}


def main():
    if len(sys.argv) not in (2, 3) or (len(sys.argv) == 3 and sys.argv[2] != "--write"):
        print("usage: prometheusrule.py SRCDIR [--write]", file=sys.stderr)
        return 2
    src = os.path.abspath(sys.argv[1])
    rules_path = os.path.join(src, "deploy", "prometheus", "ibvf.rules.yml")
    out = os.path.join(src, "deploy", "kubernetes", "monitoring", "prometheusrule.yaml")
    with open(rules_path) as f:
        groups = yaml.safe_load(f)["groups"]
    if len(sys.argv) == 3:
        text = HEAD + yaml.dump(rule_object(groups), Dumper=_Dumper, sort_keys=False,
                                width=1000)
        tmp = out + ".tmp"
        with open(tmp, "w") as f:
            f.write(text)
        os.rename(tmp, out)
        return 0
    with open(out) as f:
        have = yaml.safe_load(f)
    if have != rule_object(groups):
        print(f"FAIL {os.path.relpath(out, src)} is not deploy/prometheus/ibvf.rules.yml's "
              "groups: run tests/deploy/prometheusrule.py . --write")
        return 1
    print(f"ok   {os.path.relpath(out, src)}: the {sum(len(g['rules']) for g in groups)} rules "
          "of deploy/prometheus/ibvf.rules.yml")
    return 0


if __name__ == "__main__":
    sys.exit(main())
