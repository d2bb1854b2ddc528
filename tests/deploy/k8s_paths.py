# SPDX-License-Identifier: MIT
"""Every node path ibvf's code names, against the DaemonSet's mounts: each
path a string literal in core/, bench/ or tui/ (not the simulated kernel,
core/sim) names is under a mount of the DaemonSet, under what the container
runtime gives (/proc, /sys, /dev/null), or listed here with why it is not
mounted. A path added to the code fails this until it is one or the other."""
import os
import re

RUNTIME = ("/proc", "/sys", "/dev/null")
# The image's own links: /var/run -> /run, /lib -> usr/lib (bookworm, merged /usr).
IMAGE_LINKS = {"/var/run": "/run", "/lib": "/usr/lib"}
NOT_MOUNTED = {
    "/var/run": "read as a link (the image's, to /run): its netns paths are /run/netns's",
    "/dev/kmsg": "a non-privileged pod's device cgroup refuses it; ibvf notes the log unread",
    "/usr/local/lib/systemd/network": "absent on most nodes; creating it would change them",
    "/run/udev/control": "the console's event source, not metrics",
    "/run/ibvf/lock": "taken by actions, which do not run here",
    "/var/tmp/": "persist refuses temporary paths: a prefix it compares, not a file",
    "/usr/sbin/modprobe": "a program persist's unit runs, not read",
    "/usr/bin/udevadm": "a program persist's unit runs, not read",
    "/usr/local/share/ibvf/themes": "the console's themes, from the image",
    "/usr/local/lib/systemd/system": "unit search path: ibvf's unit is /etc's (mounted)",
    "/usr/lib/systemd/system": "unit search path: ibvf's unit is /etc's (mounted)",
    "/run/systemd/system": "unit search path: ibvf's unit is /etc's (mounted)",
    "/usr/sbin/ibvf": "persist's ibvf on a --root/--sim node; the DaemonSet runs its image's, and judges no program (IBVF_NODE_PROGRAMS=unseen)",
    "/etc/machine-id": "the benchmark's host id after /proc's boot_id; not metrics",
    "/etc/opensm/opensm.conf": "named in a remedy's text",
    "/lib/modules/": "named in a remedy's text",
    "/var/lib/kubelet/config.yaml,": "named in a remedy's text (pod-affinity)",
    "/dev/nvidia": "a prefix of the device nodes CDI specs name: compared, not opened",
    "/etc/cdi": "CDI specs written by hand (the GPU operator's are /run/cdi's, mounted); "
                "creating /etc/cdi on every node would change them: MIG devices only "
                "they name stay unplaced",
}
_LITERAL = re.compile(r'"(/(?:var|etc|run|usr|lib|dev|opt|home|root|srv)/[^"%*\s]*)')


def code_paths(srcdir):
    """{path: first file naming it} for every node path literal in the code."""
    found = {}
    for top in ("core", "bench", "tui"):
        for d, _, files in os.walk(os.path.join(srcdir, top)):
            if os.path.relpath(d, srcdir).startswith("core/sim"):
                continue
            for f in sorted(files):
                if not f.endswith((".c", ".h")):
                    continue
                path = os.path.join(d, f)
                for m in _LITERAL.finditer(open(path, encoding="utf-8").read()):
                    p = m.group(1).rstrip("/") or "/"
                    if p.count("/") >= 2 or p in ("/dev/kmsg",):
                        found.setdefault(p, os.path.relpath(path, srcdir))
    return found


def _under(path, prefix):
    return path == prefix or path.startswith(prefix.rstrip("/") + "/")


def uncovered(paths, docs):
    """Lines for each code path neither mounted, given by the runtime, nor listed."""
    mounts = set()
    for d in docs:
        if d.get("kind") == "DaemonSet":
            for c in d["spec"]["template"]["spec"]["containers"]:
                mounts |= {m["mountPath"] for m in c.get("volumeMounts", [])}
    bad = []
    for p, where in sorted(paths.items()):
        seen = p
        for link, target in IMAGE_LINKS.items():
            if _under(seen, link):
                seen = target + seen[len(link):]
        if any(_under(seen, r) for r in RUNTIME + tuple(mounts)):
            continue
        if any(_under(q, n.rstrip("/")) for n in NOT_MOUNTED for q in (p, seen)):
            continue
        bad.append(f"'{p}' ({where}) is not mounted in the DaemonSet, nor listed as not needed")
    for n in NOT_MOUNTED:
        if not any(_under(p, n.rstrip("/")) for p in paths):
            bad.append(f"'{n}' is listed as not mounted, but no code names it any more")
    return bad
