#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""The Kubernetes manifests of deploy/kubernetes, checked offline (docs/fleet.md):

1. `kubectl kustomize` builds the base, validate/, and the overlay README
   "Fleet" writes to name the two nodes (with kubectl 1.20's kustomize v2.0.3 too).
2. yamllint on the sources; every rendered object against the API models of
   python3-kubernetes (k8s_schema.py): unknown fields, wrong types, required
   fields.
3. The policies of k8s_policy.py on the rendered objects, and each policy once
   more on objects broken on purpose, where it must fail; every node path the
   code names is mounted or listed as not needed (k8s_paths.py).

Usage: check-manifests.py SRCDIR (kubectl from $KUBECTL, else PATH). Exit 77
(skipped) when kubectl or python3-kubernetes is missing (scripts/install-deps)."""
import copy
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
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


def render(kubectl, path, label):
    p = subprocess.run([kubectl, "kustomize", path], capture_output=True, text=True)
    if p.returncode != 0:
        fail(f"kubectl kustomize {label}: exit {p.returncode}: {p.stderr.strip()}")
        return []
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
        print("check-manifests: skipped: no kubectl (scripts/install-deps installs "
              "kubernetes-client)")
        return 77
    ver = subprocess.run([kubectl, "version", "--client"], capture_output=True, text=True)
    print(f"kubectl: {kubectl}: {ver.stdout.strip().splitlines()[0] if ver.stdout else '?'}")

    sources = sorted(os.path.join(d, f) for d, _, fs in os.walk(deploy) for f in fs
                     if f.endswith(".yaml"))
    yamllint(sources)

    base = render(kubectl, deploy, "deploy/kubernetes")
    alone = render(kubectl, os.path.join(deploy, "validate"), "deploy/kubernetes/validate")
    readme = os.path.join(os.path.abspath(sys.argv[1]), "docs", "operator-guide.md")
    overlay, nodes = (readme_heredoc(readme, n) for n in ("kustomization.yaml", "nodes.yaml"))
    pair = []
    if not overlay or not nodes:
        fail("docs/operator-guide.md: no overlay (cat >kustomization.yaml / cat >nodes.yaml)")
    else:
        # README's overlay sits next to the tree's top; kustomize v2 takes
        # only a relative path to a base.
        with tempfile.TemporaryDirectory() as tmp:
            rel = os.path.relpath(os.path.join(deploy, "validate"), tmp)
            with open(os.path.join(tmp, "kustomization.yaml"), "w") as f:
                f.write(overlay.replace("../deploy/kubernetes/validate", rel))
            with open(os.path.join(tmp, "nodes.yaml"), "w") as f:
                f.write(nodes)
            pair = render(kubectl, tmp, "README's overlay (nodes dgx-a-01, dgx-b-01)")

    for d in base + alone + pair:
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

    docs = base + pair
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
