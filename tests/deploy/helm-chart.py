#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""deploy/helm/ibvf checked without helm (not in Debian bookworm):

1. lint: Chart.yaml (apiVersion v2, name, version SemVer, appVersion), values.yaml
   valid against values.schema.json (python3-jsonschema), and the schema
   refusing bad values;
2. render with tests/deploy/helmtemplate (text/template + sprig, Helm's
   semantics for what the chart uses; built offline from Debian's Go packages):
   with default values the DaemonSet and ServiceAccount are the objects
   `kubectl kustomize deploy/kubernetes` builds, once Helm's labels and the
   namespace are set aside; with everything enabled the PrometheusRule's groups
   are deploy/prometheus/ibvf.rules.yml's, and every object passes
   check-manifests' API models and policies;
3. bad values fail with one line: no validation nodes, no image repository.

Usage: helm-chart.py SRCDIR BUILDDIR. Exit 77 without go, sprig or jsonschema; without kubectl, all but
the comparison with kustomize's build."""
import copy
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
try:
    import jsonschema
    import yaml
    import k8s_policy
    import k8s_schema
except ImportError as e:
    print(f"helm-chart: skipped: {e} (scripts/install-deps)")
    sys.exit(77)

GOPATH = "/usr/share/gocode"
HELM_LABELS = {"app.kubernetes.io/managed-by", "app.kubernetes.io/instance", "helm.sh/chart"}
failed = []


def fail(msg):
    failed.append(msg)
    print(f"FAIL {msg}")


def ok(msg):
    print(f"ok   {msg}")


def build(builddir):
    go = shutil.which("go")
    if not go or not os.path.isdir(f"{GOPATH}/src/github.com/Masterminds/sprig"):
        return None
    exe = os.path.join(builddir, "helmtemplate")
    env = dict(os.environ, GO111MODULE="off", GOPATH=GOPATH, GOFLAGS="",
               GOCACHE=os.path.join(builddir, "helmtemplate-gocache"))
    p = subprocess.run([go, "build", "-o", exe, "."], cwd=os.path.join(HERE, "helmtemplate"),
                       env=env, capture_output=True, text=True)
    if p.returncode != 0:
        fail(f"go build helmtemplate: {p.stderr.strip()[:500]}")
        return None
    return exe


def render(exe, chart, values=None):
    """(objects, error line) of the chart rendered with VALUES over values.yaml."""
    with tempfile.NamedTemporaryFile("w", suffix=".yaml") as f:
        yaml.safe_dump(values or {}, f)
        f.flush()
        p = subprocess.run([exe, "-n", "ibvf", "-f", f.name, "ibvf", chart],
                           capture_output=True, text=True)
    if p.returncode != 0:
        return [], p.stderr.strip()
    return [d for d in yaml.safe_load_all(p.stdout) if d], None


def strip(obj):
    """OBJ without Helm's labels and the namespace (kustomize's base has none)."""
    o = copy.deepcopy(obj)
    o["metadata"].pop("namespace", None)
    for k in HELM_LABELS:
        o["metadata"].get("labels", {}).pop(k, None)
    return o


def main():
    if len(sys.argv) != 3:
        print("usage: helm-chart.py SRCDIR BUILDDIR", file=sys.stderr)
        return 2
    src, builddir = (os.path.abspath(a) for a in sys.argv[1:])
    chart = os.path.join(src, "deploy", "helm", "ibvf")
    # kubectl 1.22 or newer (not Debian's) only for the comparison with
    # kustomize's build; the rest runs without it.
    kubectl = os.environ.get("KUBECTL") or shutil.which("kubectl")

    # 1. lint
    meta = yaml.safe_load(open(os.path.join(chart, "Chart.yaml")))
    for k, want in (("apiVersion", "v2"), ("name", "ibvf"), ("type", "application")):
        if meta.get(k) != want:
            fail(f"Chart.yaml: {k} '{meta.get(k)}', not '{want}'")
    if not re.fullmatch(r"\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?", str(meta.get("version", ""))):
        fail(f"Chart.yaml: version '{meta.get('version')}' is not SemVer")
    changelog = open(os.path.join(src, "debian", "changelog")).readline()
    if f"({meta.get('appVersion')})" not in changelog:
        fail(f"Chart.yaml: appVersion '{meta.get('appVersion')}' is not debian/changelog's: "
             f"{changelog.strip()}")
    schema = json.load(open(os.path.join(chart, "values.schema.json")))
    defaults = yaml.safe_load(open(os.path.join(chart, "values.yaml")))
    v = jsonschema.Draft7Validator(schema)
    errs = [e.message for e in v.iter_errors(defaults)]
    for e in errs:
        fail(f"values.yaml against values.schema.json: {e}")
    if not errs:
        ok(f"Chart.yaml {meta['name']} {meta['version']} (appVersion {meta['appVersion']}); "
           "values.yaml valid against values.schema.json")
    for what, change in (("pullPolicy 'Sometimes'", {"image": {"pullPolicy": "Sometimes"}}),
                         ("an unknown key", {"replicas": 3}),
                         ("validate on without nodes", {"validate": {"enabled": True}})):
        bad = copy.deepcopy(defaults)
        for k, val in change.items():
            bad[k] = {**bad[k], **val} if isinstance(bad.get(k), dict) else val
        e = next(v.iter_errors(bad), None)
        if e:
            ok(f"values.schema.json refuses {what}: {e.message[:100]}")
        else:
            fail(f"values.schema.json takes {what}")

    exe = build(builddir)
    if not exe:
        if not failed:
            print("helm-chart: skipped: no go or sprig (golang-go, "
                  "golang-github-masterminds-sprig-dev: scripts/install-deps)")
            return 77
        return 1

    # 2. defaults: the kustomize base's objects
    base = None
    if kubectl:
        k = subprocess.run([kubectl, "kustomize", os.path.join(src, "deploy", "kubernetes")],
                           capture_output=True, text=True)
        base = {(d["kind"], d["metadata"]["name"]): d
                for d in yaml.safe_load_all(k.stdout) if d}
    else:
        print("skip the comparison with kustomize's build: no kubectl (1.22 or newer; "
              "Debian's 1.20 cannot build deploy/kubernetes)")
    docs, err = render(exe, chart)
    if err:
        fail(f"render with default values: {err}")
    got = {(d["kind"], d["metadata"]["name"]): d for d in docs}
    if sorted(got) != [("DaemonSet", "ibvf-metrics"), ("ServiceAccount", "ibvf")]:
        fail(f"default values render {sorted(got)}, not the DaemonSet and ServiceAccount")
    for key, d in got.items():
        if d["metadata"].get("namespace") != "ibvf":
            fail(f"{key[0]}/{key[1]}: not in the release's namespace")
        if base is None:
            continue
        want = dict(base.get(key, {}))
        want.get("metadata", {}).pop("namespace", None)
        if strip(d) != want:
            a, b = yaml.safe_dump(strip(d)).splitlines(), yaml.safe_dump(want).splitlines()
            diff = [f"{x} | {y}" for x, y in zip(a, b) if x != y][:3]
            fail(f"{key[0]}/{key[1]}: the chart's differs from kustomize's: {diff}")
        else:
            ok(f"{key[0]}/{key[1]}: the chart's with default values is kustomize's "
               "(Helm's labels and the namespace set aside)")

    # The comparison can tell: without the priority class the DaemonSets differ.
    docs, err = render(exe, chart, {"priorityClassName": ""})
    ds = [d for d in docs if d["kind"] == "DaemonSet"]
    want = dict((base or {}).get(("DaemonSet", "ibvf-metrics"), {}))
    want.get("metadata", {}).pop("namespace", None)
    if base is None:
        pass
    elif err or not ds or strip(ds[0]) == want:
        fail(f"priorityClassName '': the DaemonSet still equals kustomize's ({err})")
    else:
        ok("priorityClassName '': the comparison sees the DaemonSets differ")

    # 2b. everything on
    on = {"image": {"repository": "registry.example.org/ibvf", "tag": "0.1.0"},
          "prometheusRule": {"enabled": True, "labels": {"release": "kps"}},
          "serviceMonitor": {"enabled": True},
          "validate": {"enabled": True, "serverNode": "dgx-a-01", "clientNode": "dgx-b-01"}}
    errs = [e.message for e in v.iter_errors({**defaults, **on})]
    if errs:
        fail(f"the values of the full render against the schema: {errs[0]}")
    docs, err = render(exe, chart, on)
    if err:
        fail(f"render with everything on: {err}")
    kinds = sorted(f"{d['kind']}/{d['metadata']['name']}" for d in docs)
    ok(f"everything on: {len(docs)} objects ({', '.join(kinds)})")
    rules = yaml.safe_load(open(os.path.join(src, "deploy", "prometheus", "ibvf.rules.yml")))
    pr = [d for d in docs if d["kind"] == "PrometheusRule"]
    if not pr or pr[0]["spec"]["groups"] != rules["groups"]:
        fail("PrometheusRule: its groups are not deploy/prometheus/ibvf.rules.yml's")
    else:
        ok(f"PrometheusRule: the groups of deploy/prometheus/ibvf.rules.yml "
           f"({sum(len(g['rules']) for g in rules['groups'])} rules), labels "
           f"{pr[0]['metadata']['labels'].get('release')}")
    for d in docs:
        if d["apiVersion"].startswith("monitoring.coreos.com/"):
            continue
        for e in k8s_schema.validate(d):
            fail(f"schema {e}")
    for policy in k8s_policy.POLICIES:
        for line in policy(docs):
            fail(f"{policy.__name__}: {line}")
    if not any(f.startswith(("schema", "p_")) for f in failed):
        ok(f"the full render passes python3-kubernetes' models and "
           f"{len(k8s_policy.POLICIES)} policies of k8s_policy.py")
    for name, what, vio in k8s_policy.self_test(docs):
        if not vio:
            fail(f"{name} did not fail on the chart's objects broken ({what})")

    # 3. bad values: one line each
    for what, values, want in (
            ("validate without nodes", {"validate": {"enabled": True}},
             "validate.serverNode is empty"),
            ("validate on one node", {"validate": {"enabled": True, "serverNode": "n",
                                                   "clientNode": "n"}}, "are one node"),
            ("no image repository", {"image": {"repository": ""}}, "image.repository is empty")):
        _, err = render(exe, chart, values)
        if err and want in err and len(err.splitlines()) == 1:
            ok(f"{what}: {err[:120]}")
        else:
            fail(f"{what}: rendered, or not one line naming it: {err}")

    print(f"helm-chart: {len(failed)} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
