#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""The Kubernetes manifests of deploy/kubernetes, checked offline (docs/fleet.md):

1. `kubectl kustomize` builds the base, validate/, monitoring/ and the overlay
   README "Fleet" writes to name the two nodes; the first three without a
   warning on stderr (no deprecated field). kustomize v4.2 (kubectl 1.22) or
   newer: Debian bookworm's kubectl 1.20 (kustomize v2.0.3) reads neither
   `labels` nor `configurations`' string-list name references, and is skipped.
2. yamllint on the sources; every rendered object against the API models of
   python3-kubernetes (k8s_schema.py): unknown fields, wrong types, required
   fields.
3. The policies of k8s_policy.py on the rendered objects, and each policy once
   more on objects broken on purpose, where it must fail; every node path the
   code names is mounted or listed as not needed (k8s_paths.py).

Usage: check-manifests.py SRCDIR (kubectl from $KUBECTL, else PATH). Exit 77
(skipped) when kubectl (1.22 or newer) or python3-kubernetes is missing
(scripts/install-deps)."""
import copy
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
try:
    import yaml
    import k8s_paths
    import k8s_policy
    import k8s_schema
except ImportError as e:
    print(f"check-manifests: skipped: {e} (scripts/install-deps installs python3-kubernetes)")
    sys.exit(77)

IMAGE = "registry.example.org/ibvf:0.1.0"


def readme_heredoc(readme, name):
    """The text README "Fleet" writes to NAME (`cat >NAME <<'YAML'` ... `YAML`):
    the overlay tested is the one the operator is told to write."""
    text = open(readme).read()
    start = text.find(f"cat >{name} <<'YAML'\n")
    end = text.find("\nYAML\n", start)
    if start < 0 or end < 0:
        return None
    return text[start + len(f"cat >{name} <<'YAML'\n"):end + 1]


failed = []


def fail(msg):
    failed.append(msg)
    print(f"FAIL {msg}")


def render(kubectl, path, label, quiet=True):
    """The objects `kubectl kustomize PATH` builds; with QUIET, any word on
    stderr (kustomize's deprecation warnings) fails."""
    p = subprocess.run([kubectl, "kustomize", path], capture_output=True, text=True)
    if p.returncode != 0:
        fail(f"kubectl kustomize {label}: exit {p.returncode}: {p.stderr.strip()[:500]}")
        return []
    if quiet and p.stderr.strip():
        fail(f"kubectl kustomize {label}: stderr: {p.stderr.strip()[:500]}")
    try:
        docs = [d for d in yaml.safe_load_all(p.stdout) if d]
    except yaml.YAMLError as e:
        fail(f"kubectl kustomize {label}: output is not YAML: {e}")
        return []
    kinds = ", ".join(f"{d['kind']}/{d['metadata']['name']}" for d in docs)
    print(f"ok   kubectl kustomize {label}: {len(docs)} objects ({kinds})")
    return docs


def yamllint(files):
    exe = shutil.which("yamllint")
    if not exe:
        fail("yamllint is not installed (scripts/install-deps installs it)")
        return
    conf = "{extends: default, rules: {line-length: {max: 100}, document-start: disable}}"
    p = subprocess.run([exe, "-f", "parsable", "-d", conf] + files, capture_output=True,
                       text=True)
    for line in p.stdout.splitlines():
        fail(f"yamllint {line}")
    if p.returncode == 0:
        print(f"ok   yamllint: {len(files)} files")
    elif not p.stdout.strip():
        fail(f"yamllint exit {p.returncode}: {p.stderr.strip()[:300]}")


def main():
    if len(sys.argv) != 2:
        print("usage: check-manifests.py SRCDIR", file=sys.stderr)
        return 2
    deploy = os.path.join(os.path.abspath(sys.argv[1]), "deploy", "kubernetes")
    kubectl = os.environ.get("KUBECTL") or shutil.which("kubectl")
    if not kubectl:
        print("check-manifests: skipped: no kubectl (1.22 or newer: Debian's kubernetes-client "
              "is 1.20, too old for these manifests, so scripts/install-deps installs none)")
        return 77
    ver = subprocess.run([kubectl, "version", "--client"], capture_output=True, text=True)
    print(f"kubectl: {kubectl}: {' '.join(ver.stdout.split())[:200] or '?'}")
    kv = re.search(r"Kustomize Version: v(\d+)\.(\d+)", ver.stdout)
    if not kv or (int(kv[1]), int(kv[2])) < (4, 2):
        print("check-manifests: skipped: this kubectl's kustomize is older than v4.2 (kubectl "
              "1.22), which the manifests need (docs/fleet.md)")
        return 77

    # prometheusrule.yaml is generated (its source, ibvf.rules.yml, is promtool's).
    sources = sorted(os.path.join(d, f) for d, _, fs in os.walk(deploy) for f in fs
                     if f.endswith(".yaml") and f != "prometheusrule.yaml")
    yamllint(sources)

    base = render(kubectl, deploy, "deploy/kubernetes")
    alone = render(kubectl, os.path.join(deploy, "validate"), "deploy/kubernetes/validate")
    monitoring = render(kubectl, os.path.join(deploy, "monitoring"),
                        "deploy/kubernetes/monitoring")
    monitoring += render(kubectl, os.path.join(deploy, "monitoring", "node-exporter"),
                         "deploy/kubernetes/monitoring/node-exporter")
    # The PrometheusRule's groups are ibvf.rules.yml's (tests/deploy/prometheusrule.py).
    p = subprocess.run([sys.executable, os.path.join(HERE, "prometheusrule.py"),
                        os.path.abspath(sys.argv[1])], capture_output=True, text=True)
    print(p.stdout.strip()) if p.returncode == 0 else fail(p.stdout.strip()[5:] or p.stderr)
    # The warning check can fail: a kustomization with commonLabels warns.
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "kustomization.yaml"), "w") as f:
            f.write("commonLabels:\n  a: b\nresources:\n  - cm.yaml\n")
        with open(os.path.join(tmp, "cm.yaml"), "w") as f:
            f.write("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n")
        p = subprocess.run([kubectl, "kustomize", tmp], capture_output=True, text=True)
        if p.returncode == 0 and "deprecated" in p.stderr:
            print(f"ok   the check sees a deprecated field's warning: {p.stderr.strip()[:120]}")
        else:
            fail(f"kubectl kustomize of a kustomization with commonLabels: exit {p.returncode}, "
                 f"no warning on stderr: {p.stderr.strip()[:200]}")
    readme = os.path.join(os.path.abspath(sys.argv[1]), "docs", "operator-guide.md")
    overlay, nodes = (readme_heredoc(readme, n) for n in ("kustomization.yaml", "nodes.yaml"))
    pair = []
    if not overlay or not nodes:
        fail("docs/operator-guide.md: no overlay (cat >kustomization.yaml / cat >nodes.yaml)")
    else:
        # The guide's overlay sits next to the tree's top; kustomize v2 takes
        # only a relative path to a base.
        with tempfile.TemporaryDirectory() as tmp:
            rel = os.path.relpath(os.path.join(deploy, "validate"), tmp)
            with open(os.path.join(tmp, "kustomization.yaml"), "w") as f:
                f.write(overlay.replace("../deploy/kubernetes/validate", rel))
            with open(os.path.join(tmp, "nodes.yaml"), "w") as f:
                f.write(nodes)
            pair = render(kubectl, tmp, "docs/operator-guide.md's overlay (nodes dgx-a-01, dgx-b-01)")

    # The Prometheus Operator's kinds have no model offline: their fields are
    # held by k8s_policy.p_monitoring instead.
    crd = [d for d in monitoring if d["apiVersion"].startswith("monitoring.coreos.com/")]
    for d in base + alone + pair + [d for d in monitoring if d not in crd]:
        for e in k8s_schema.validate(d):
            fail(f"schema {e}")
    n = len(base + alone + pair)
    if n and not any(f.startswith("schema") for f in failed):
        print(f"ok   schema: {n} objects against python3-kubernetes' API models")

    # Until the overlay names the nodes, no node matches the Jobs.
    for j in (d for d in alone if d["kind"] == "Job"):
        if j["spec"]["template"]["spec"]["nodeSelector"].get("kubernetes.io/hostname") != "":
            fail(f"validate/ alone: Job/{j['metadata']['name']} is pinned to a node")

    # The image is the one the overlay names, in every container.
    for label, spec in k8s_policy.pods(pair):
        for c in k8s_policy.containers(spec):
            if c.get("image") != IMAGE:
                fail(f"overlay: {label} container '{c['name']}' image '{c.get('image')}', "
                     f"not '{IMAGE}'")

    # Every path the code names: mounted, the runtime's, or listed as not needed.
    paths = k8s_paths.code_paths(os.path.abspath(sys.argv[1]))
    lines = k8s_paths.uncovered(paths, base)
    for line in lines:
        fail(f"paths: {line}")
    if base and not lines:
        print(f"ok   paths: the {len(paths)} node paths the code names are mounted, the "
              f"runtime's, or listed as not needed")
    if base:
        broken = copy.deepcopy(base)
        for d in broken:
            for c in d.get("spec", {}).get("template", {}).get("spec", {}).get("containers", []):
                c["volumeMounts"] = [m for m in c.get("volumeMounts", [])
                                     if m["mountPath"] != "/var/log/pods"]
        v = k8s_paths.uncovered(paths, broken)
        if v:
            print(f"ok   paths fails when broken (no /var/log/pods mount): {v[0]}")
        else:
            fail("paths did not fail when broken (no /var/log/pods mount)")

    docs = base + pair + monitoring
    for policy in k8s_policy.POLICIES:
        v = policy(docs)
        for line in v:
            fail(f"{policy.__name__}: {line}")
        if not v:
            print(f"ok   {policy.__name__}")
    if docs:
        for name, what, v in k8s_policy.self_test(docs):
            if v:
                print(f"ok   {name} fails when broken ({what}): {v[0]}")
            else:
                fail(f"{name} did not fail when broken ({what})")

    print(f"check-manifests: {len(failed)} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
