#!/usr/bin/python3
"""The alerts' runbook and inhibitions against each other (docs/runbook.md).

Every alert of deploy/prometheus/ibvf.rules.yml has a runbook_url that is
RUNBOOK#anchor, the anchor a heading of docs/runbook.md (as GitHub makes
it), and every alert heading there is an alert. Every inhibit rule of
deploy/prometheus/alertmanager-inhibit.yml names alerts that exist, and its
`equal` labels are on both its source and its targets, as the promtool
tests (ibvf.rules.test.yml) show them firing: a label missing on both sides
would compare equal and inhibit across PFs. amtool check-config on it, when
amtool is installed. Each check is also shown failing on inputs broken on
purpose.
  tests/prom/runbook.py SRCDIR
"""
import copy
import os
import re
import shutil
import subprocess
import sys
import tempfile

import yaml

RUNBOOK = "https://github.com/ibvf/ibvf/blob/main/docs/runbook.md"


def anchor(heading):
    """GitHub's anchor of a Markdown heading."""
    a = heading.strip().lower()
    a = re.sub(r"[^\w\- ]", "", a)
    return a.replace(" ", "-")


def alerts_of(rules):
    return [r for g in rules["groups"] for r in g["rules"] if "alert" in r]


def fired_labels(tests):
    """alertname -> the label names of every alert the tests expect."""
    out = {}
    for t in tests["tests"]:
        for case in t.get("alert_rule_test", []):
            for exp in case.get("exp_alerts") or []:
                out.setdefault(case["alertname"], set()).update(exp["exp_labels"])
    return out


def matcher_names(matchers, names):
    """The alerts among names that a list of matchers ('alertname = X',
    'alertname =~ "A|B"', 'alertname != X') selects."""
    sel = set(names)
    for m in matchers:
        k, op, v = re.match(r'\s*(\w+)\s*(=~|!~|!=|=)\s*"?(.*?)"?\s*$', m).groups()
        if k != "alertname":
            continue
        if op == "=":
            sel &= {v}
        elif op == "!=":
            sel -= {v}
        elif op == "=~":
            sel = {n for n in sel if re.fullmatch(v, n)}
        else:
            sel = {n for n in sel if not re.fullmatch(v, n)}
    return sel


def check(rules, runbook_md, inhibit, tests):
    errs = []
    headings = re.findall(r"^## (.+)$", runbook_md, re.M)
    anchors = {anchor(h) for h in headings}
    alerts = alerts_of(rules)
    names = [a["alert"] for a in alerts]
    for a in alerts:
        url = a.get("annotations", {}).get("runbook_url")
        if not url:
            errs.append(f"alert '{a['alert']}' has no runbook_url")
            continue
        base, _, frag = url.partition("#")
        if base != RUNBOOK:
            errs.append(f"alert '{a['alert']}': runbook_url '{url}' is not {RUNBOOK}#...")
        elif frag not in anchors:
            errs.append(f"alert '{a['alert']}': anchor '#{frag}' is no heading of docs/runbook.md")
        elif frag != anchor(a["alert"]):
            errs.append(f"alert '{a['alert']}': anchor '#{frag}' is another alert's section")
    for h in headings:
        if h not in names:
            errs.append(f"docs/runbook.md section '{h}' is no alert of ibvf.rules.yml")
    labels = fired_labels(tests)
    for i, r in enumerate(inhibit.get("inhibit_rules", [])):
        src = matcher_names(r.get("source_matchers", []), names)
        dst = matcher_names(r.get("target_matchers", []), names)
        if not src or not dst:
            errs.append(f"inhibit rule {i + 1}: its source or targets match no alert")
        for n in sorted(src | dst):
            if n not in labels:
                errs.append(f"inhibit rule {i + 1}: alert '{n}' fires in no promtool test")
                continue
            for lab in r.get("equal", []):
                if lab not in labels[n]:
                    errs.append(f"inhibit rule {i + 1}: alert '{n}' has no label '{lab}' "
                                "(equal would match across it)")
    return errs


def amtool(path):
    """amtool check-config on the inhibit rules in a minimal config."""
    with tempfile.TemporaryDirectory() as d:
        cfg = os.path.join(d, "am.yml")
        with open(path) as f, open(cfg, "w") as o:
            o.write("route:\n  receiver: x\nreceivers:\n  - name: x\n" + f.read())
        p = subprocess.run(["amtool", "check-config", cfg], capture_output=True, text=True)
        return p.returncode, p.stdout + p.stderr


def main():
    src = sys.argv[1]
    prom = os.path.join(src, "deploy", "prometheus")
    with open(os.path.join(prom, "ibvf.rules.yml")) as f:
        rules = yaml.safe_load(f)
    with open(os.path.join(prom, "ibvf.rules.test.yml")) as f:
        tests = yaml.safe_load(f)
    with open(os.path.join(prom, "alertmanager-inhibit.yml")) as f:
        inhibit = yaml.safe_load(f)
    with open(os.path.join(src, "docs", "runbook.md")) as f:
        runbook_md = f.read()

    fail = 0
    errs = check(rules, runbook_md, inhibit, tests)
    for e in errs:
        print("FAIL:", e)
        fail = 1
    if not errs:
        print(f"{len(alerts_of(rules))} alerts, each with its runbook section; "
              f"{len(inhibit['inhibit_rules'])} inhibit rules on labels their alerts carry")

    # The checks fail where they should.
    broken = []
    r = copy.deepcopy(rules)
    del alerts_of(r)[0]["annotations"]["runbook_url"]
    broken.append(("an alert without runbook_url", check(r, runbook_md, inhibit, tests)))
    r = copy.deepcopy(rules)
    alerts_of(r)[1]["annotations"]["runbook_url"] = RUNBOOK + "#nosuchsection"
    broken.append(("an anchor with no heading", check(r, runbook_md, inhibit, tests)))
    md = re.sub(r"^## IbvfVFPortDown$", "## Port down", runbook_md, flags=re.M)
    broken.append(("a section renamed", check(rules, md, inhibit, tests)))
    i = copy.deepcopy(inhibit)
    i["inhibit_rules"][0]["equal"] = ["instance", "device"]
    broken.append(("an equal label the alerts lack", check(rules, runbook_md, i, tests)))
    i = copy.deepcopy(inhibit)
    i["inhibit_rules"][0]["source_matchers"] = ["alertname = IbvfNoSuchAlert"]
    broken.append(("an inhibit source that is no alert", check(rules, runbook_md, i, tests)))
    for what, e in broken:
        if e:
            print(f"broken on purpose ({what}): caught: {e[0]}")
        else:
            print(f"FAIL: broken on purpose ({what}): not caught")
            fail = 1

    if shutil.which("amtool"):
        rc, out = amtool(os.path.join(prom, "alertmanager-inhibit.yml"))
        print("amtool check-config:", "ok" if rc == 0 else "FAILED\n" + out)
        fail |= rc != 0
        with tempfile.TemporaryDirectory() as d:
            bad = os.path.join(d, "bad.yml")
            with open(bad, "w") as o:
                o.write("inhibit_rules:\n  - source_matchers: ['alertname =~ \"(\"']\n")
            rc, _ = amtool(bad)
            print("amtool on a broken matcher:", "caught" if rc else "FAIL: not caught")
            fail |= rc == 0
    else:
        print("amtool not installed: check-config not run")
    return fail


if __name__ == "__main__":
    sys.exit(main())
