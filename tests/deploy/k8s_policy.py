# SPDX-License-Identifier: MIT
"""What the rendered manifests must hold (docs/fleet.md): each policy is a
function of the objects returning its violations, one line each. MUTATIONS
breaks the objects once per policy, on purpose, to show that each can fail."""
import copy
import re

TEXTFILE = "/var/lib/node_exporter/textfile_collector"
HISTORY = "/var/lib/ibvf"
HCA_LABEL = "feature.node.kubernetes.io/pci-15b3.present"
# Every host path a pod may mount, and the one each may write.
HOST_PATHS = {
    "/var/lib/kubelet/pods", "/var/lib/kubelet/device-plugins", "/var/lib/kubelet/pod-resources", "/var/lib/cni", "/run/netns",
    "/var/log/pods", "/var/lib/ibvf", "/etc/systemd/network", "/run/systemd/network",
    "/usr/lib/systemd/network", "/etc/systemd/system", TEXTFILE, "/run/ibvf", "/run/cdi",
    "/etc/sriov-operator", "/etc/ibvf",
}
# By workload, or workload/container where one container of it writes more.
WRITABLE = {"DaemonSet/ibvf-metrics": {TEXTFILE},
            "DaemonSet/ibvf-metrics/record": {HISTORY, "/run/ibvf"}, "client": {HISTORY}}
# Words of ibvf's command line that change the node.
ACTION_WORDS = {"vf", "persist", "undo", "--fix", "check", "bench", "debug", "mkfixture",
                "journal", "reboot", "--yes"}


def objs(docs, kind):
    return [d for d in docs if d.get("kind") == kind]


def pods(docs):
    """(label, pod spec) of every workload."""
    for d in docs:
        if d.get("kind") in ("DaemonSet", "Job"):
            yield f"{d['kind']}/{d['metadata']['name']}", d["spec"]["template"]["spec"]


def containers(spec):
    return spec.get("containers", []) + spec.get("initContainers", [])


def role(label, container=None):
    if "validate-client" in label:
        return "client"
    if container and f"{label}/{container}" in WRITABLE:
        return f"{label}/{container}"
    return label


def p_hostpath_readonly(docs):
    bad = []
    for label, spec in pods(docs):
        vols = {v["name"]: v["hostPath"]["path"] for v in spec.get("volumes", [])
                if "hostPath" in v}
        for c in containers(spec):
            for m in c.get("volumeMounts", []):
                path = vols.get(m["name"])
                if path and not m.get("readOnly") and path not in WRITABLE.get(role(label, c["name"]), ()):
                    bad.append(f"{label}: hostPath '{path}' mounted read-write at "
                               f"'{m['mountPath']}'")
    return bad


def p_hostpath_allowed(docs):
    bad = []
    for label, spec in pods(docs):
        for v in spec.get("volumes", []):
            hp = v.get("hostPath")
            if hp and hp["path"] not in HOST_PATHS:
                bad.append(f"{label}: hostPath '{hp['path']}' is not one ibvf reads")
            elif hp and not hp.get("type"):
                bad.append(f"{label}: hostPath '{hp['path']}' has no type (the runtime "
                           f"would create it)")
    return bad


def p_same_path(docs):
    """ibvf reads / as on the node: each host path at its own path."""
    bad = []
    for label, spec in pods(docs):
        vols = {v["name"]: v["hostPath"]["path"] for v in spec.get("volumes", [])
                if "hostPath" in v}
        for c in containers(spec):
            for m in c.get("volumeMounts", []):
                if m["name"] in vols and m["mountPath"] != vols[m["name"]]:
                    bad.append(f"{label}: hostPath '{vols[m['name']]}' mounted at "
                               f"'{m['mountPath']}'")
    return bad


def p_not_privileged(docs):
    bad = []
    for label, spec in pods(docs):
        for c in containers(spec):
            sc = c.get("securityContext") or {}
            if sc.get("privileged") is not False:
                bad.append(f"{label}: container '{c['name']}' privileged is not false")
            if sc.get("allowPrivilegeEscalation") is not False:
                bad.append(f"{label}: container '{c['name']}' allowPrivilegeEscalation is "
                           f"not false")
            if sc.get("readOnlyRootFilesystem") is not True:
                bad.append(f"{label}: container '{c['name']}' root filesystem is writable")
        if spec.get("hostPID") or spec.get("hostIPC"):
            bad.append(f"{label}: hostPID or hostIPC")
    return bad


def p_capabilities(docs):
    bad = []
    for label, spec in pods(docs):
        allowed = set() if label.startswith("DaemonSet/") else {"IPC_LOCK"}
        for c in containers(spec):
            caps = (c.get("securityContext") or {}).get("capabilities") or {}
            if "ALL" not in caps.get("drop", []):
                bad.append(f"{label}: container '{c['name']}' does not drop ALL capabilities")
            extra = set(caps.get("add", [])) - allowed
            if extra:
                bad.append(f"{label}: container '{c['name']}' adds {sorted(extra)}")
    return bad


def p_seccomp(docs):
    return [f"{label}: seccompProfile is not RuntimeDefault" for label, spec in pods(docs)
            if ((spec.get("securityContext") or {}).get("seccompProfile") or {}).get("type")
            != "RuntimeDefault"]


def p_no_token(docs):
    bad = [f"ServiceAccount/{sa['metadata']['name']}: automountServiceAccountToken is not false"
           for sa in objs(docs, "ServiceAccount") if sa.get("automountServiceAccountToken")
           is not False]
    bad += [f"{label}: automountServiceAccountToken is not false" for label, spec in pods(docs)
            if spec.get("automountServiceAccountToken") is not False]
    return bad


def p_host_network(docs):
    return [f"{label}: not hostNetwork with dnsPolicy ClusterFirstWithHostNet"
            for label, spec in pods(docs)
            if not spec.get("hostNetwork") or spec.get("dnsPolicy") != "ClusterFirstWithHostNet"]


def p_metrics_only(docs):
    bad = []
    for ds in objs(docs, "DaemonSet"):
        for c in containers(ds["spec"]["template"]["spec"]):
            argv = c.get("command", []) + c.get("args", [])
            label = f"DaemonSet/{ds['metadata']['name']}: container '{c['name']}'"
            if argv[:2] not in (["/usr/sbin/ibvf", "metrics"], ["/usr/sbin/ibvf", "record"]):
                bad.append(f"{label} runs {argv[:2]}, not '/usr/sbin/ibvf metrics' or "
                           f"'/usr/sbin/ibvf record'")
            words = set(argv[2:]) & ACTION_WORDS
            if words:
                bad.append(f"{label} passes {sorted(words)} to ibvf")
            if argv[1:2] == ["record"]:
                continue
            opts = dict(zip(argv, argv[1:]))
            if opts.get("--textfile") != TEXTFILE:
                bad.append(f"{label}: --textfile is not '{TEXTFILE}'")
            if not opts.get("--interval", "").isdigit():
                bad.append(f"{label}: no --interval SECONDS")
    return bad


def p_hca_nodes(docs):
    """The Network Operator's scheduling: NFD's label of a 15b3 (Mellanox/NVIDIA)
    PCI device, every NoSchedule and NoExecute taint tolerated, system-node-critical."""
    bad = []
    for ds in objs(docs, "DaemonSet"):
        name = f"DaemonSet/{ds['metadata']['name']}"
        spec = ds["spec"]["template"]["spec"]
        if (spec.get("nodeSelector") or {}).get(HCA_LABEL) != "true":
            bad.append(f"{name}: not on {HCA_LABEL} nodes")
        for effect in ("NoSchedule", "NoExecute"):
            if not any(t.get("operator") == "Exists" and "key" not in t
                       and t.get("effect") in (effect, None) for t in spec.get("tolerations", [])):
                bad.append(f"{name}: not every {effect} taint tolerated (operator Exists, no key)")
        if spec.get("priorityClassName") != "system-node-critical":
            bad.append(f"{name}: priorityClassName '{spec.get('priorityClassName')}', not "
                       "'system-node-critical'")
    return bad


def p_monitoring(docs):
    """ibvf has no port: a ServiceMonitor or PodMonitor scrapes node_exporter
    (port http-metrics) and keeps ibvf's series and the infiniband collector's
    the rules join them with; a PrometheusRule has alert rules."""
    bad = []
    for m in objs(docs, "ServiceMonitor") + objs(docs, "PodMonitor"):
        name = f"{m['kind']}/{m['metadata']['name']}"
        sel = (m["spec"].get("selector") or {}).get("matchLabels") or {}
        if "node-exporter" not in sel.get("app.kubernetes.io/name", ""):
            bad.append(f"{name}: selects {sel}, not node_exporter's")
        eps = m["spec"].get("endpoints") or m["spec"].get("podMetricsEndpoints") or []
        if not eps:
            bad.append(f"{name}: no endpoint")
        for ep in eps:
            if ep.get("port") != "http-metrics":
                bad.append(f"{name}: port '{ep.get('port')}', not node_exporter's 'http-metrics'")
            keep = [r.get("regex", "") for r in ep.get("metricRelabelings", [])
                    if r.get("action") == "keep"]
            for series in ("ibvf_vf_info", "node_infiniband_state_id"):
                if keep and not any(re.fullmatch(k, series) for k in keep):
                    bad.append(f"{name}: metricRelabelings drop {series}")
    for r in objs(docs, "PrometheusRule"):
        if not any(rule.get("alert") for g in r["spec"].get("groups", [])
                   for rule in g.get("rules", [])):
            bad.append(f"PrometheusRule/{r['metadata']['name']}: no alert rule")
    return bad


def p_resources(docs):
    return [f"{label}: container '{c['name']}' has no memory request and limit"
            for label, spec in pods(docs) for c in containers(spec)
            if not (c.get("resources") or {}).get("requests", {}).get("memory")
            or not (c.get("resources") or {}).get("limits", {}).get("memory")]


def p_jobs(docs):
    bad = []
    for j in objs(docs, "Job"):
        s, name = j["spec"], f"Job/{j['metadata']['name']}"
        if s.get("backoffLimit") != 0:
            bad.append(f"{name}: backoffLimit is not 0")
        for f in ("activeDeadlineSeconds", "ttlSecondsAfterFinished"):
            if not isinstance(s.get(f), int) or s[f] <= 0:
                bad.append(f"{name}: no {f}")
        if s["template"]["spec"].get("restartPolicy") != "Never":
            bad.append(f"{name}: restartPolicy is not Never")
    return bad


def p_key_file(docs):
    """A Secret volume's files are symlinks, which ibvf refuses as a key:
    the key is mounted by subPath, readable by its owner only."""
    bad = []
    for label, spec in pods(docs):
        secrets = {v["name"]: v["secret"] for v in spec.get("volumes", []) if "secret" in v}
        for name, sec in secrets.items():
            if sec.get("defaultMode", 0o644) & 0o077:
                bad.append(f"{label}: Secret volume '{name}' mode "
                           f"{sec.get('defaultMode', 0o644):04o} lets others read the key")
        for c in containers(spec):
            argv = c.get("command", []) + c.get("args", [])
            # The words of the command line, and of a shell script in it.
            words = [x for w in argv for x in w.split()]
            keys = [b for a, b in zip(words, words[1:]) if a == "--key"]
            for key in keys:
                m = [m for m in c.get("volumeMounts", []) if m["mountPath"] == key]
                if not m or m[0]["name"] not in secrets or not m[0].get("subPath"):
                    bad.append(f"{label}: --key '{key}' is not a Secret's file mounted by subPath")
    return bad


def _validate_parts(docs):
    jobs = {role(f"Job/{j['metadata']['name']}"): j for j in objs(docs, "Job")}
    server = next((j for n, j in jobs.items() if "validate-server" in n), None)
    client = jobs.get("client")
    return server, client, objs(docs, "Service")


def p_validate_pair(docs):
    server, client, services = _validate_parts(docs)
    if not server and not client:
        return []
    if not server or not client or len(services) != 1:
        return ["validate: want one server Job, one client Job and one Service"]
    bad = []
    host = lambda j: (j["spec"]["template"]["spec"].get("nodeSelector") or {}).get(
        "kubernetes.io/hostname")
    if not host(server) or not host(client) or host(server) == host(client):
        bad.append(f"validate: server node '{host(server)}' and client node '{host(client)}' "
                   f"are not two named nodes")
    svc = services[0]
    labels = server["spec"]["template"]["metadata"]["labels"]
    if not svc["spec"].get("selector") or any(labels.get(k) != v for k, v in
                                               svc["spec"]["selector"].items()):
        bad.append(f"Service/{svc['metadata']['name']}: does not select the server's pod")
    argv = client["spec"]["template"]["spec"]["containers"][0]["command"]
    if argv[-1] != svc["metadata"]["name"]:
        bad.append(f"{client['metadata']['name']}: asks for server '{argv[-1]}', the Service is "
                   f"'{svc['metadata']['name']}'")
    return bad


POLICIES = [p_hostpath_readonly, p_hostpath_allowed, p_same_path, p_not_privileged,
            p_capabilities, p_seccomp, p_no_token, p_host_network, p_metrics_only, p_hca_nodes,
            p_monitoring, p_resources, p_jobs, p_key_file, p_validate_pair]


def _first(docs, kind, name_part=""):
    return next(d for d in docs if d.get("kind") == kind and name_part in d["metadata"]["name"])


def _ds(docs):
    return _first(docs, "DaemonSet")["spec"]["template"]["spec"]


def _mount(spec, path):
    return next(m for c in spec["containers"] for m in c.get("volumeMounts", [])
                if m["mountPath"] == path)


def _client(docs):
    return _first(docs, "Job", "client")["spec"]["template"]["spec"]


# (policy, what the break does, the break): each must make its policy fail.
MUTATIONS = [
    (p_hostpath_readonly, "/var/lib/cni mounted read-write",
     lambda d: _mount(_ds(d), "/var/lib/cni").pop("readOnly")),
    (p_hostpath_allowed, "a hostPath for /var/run/docker.sock",
     lambda d: _ds(d)["volumes"].append({"name": "x", "hostPath": {"path": "/var/run/docker.sock",
                                                                   "type": "Socket"}})),
    (p_same_path, "/var/log/pods mounted under /host",
     lambda d: _mount(_ds(d), "/var/log/pods").update(mountPath="/host/var/log/pods")),
    (p_not_privileged, "privileged: true",
     lambda d: _ds(d)["containers"][0]["securityContext"].update(privileged=True)),
    (p_capabilities, "CAP_SYS_ADMIN added",
     lambda d: _ds(d)["containers"][0]["securityContext"]["capabilities"].update(
         add=["SYS_ADMIN"])),
    (p_seccomp, "seccomp Unconfined",
     lambda d: _ds(d)["securityContext"]["seccompProfile"].update(type="Unconfined")),
    (p_no_token, "a token mounted",
     lambda d: _first(d, "ServiceAccount").update(automountServiceAccountToken=True)),
    (p_host_network, "no hostNetwork", lambda d: _ds(d).pop("hostNetwork")),
    (p_metrics_only, "check --fix instead of metrics",
     lambda d: _ds(d)["containers"][0].update(command=["/usr/sbin/ibvf", "check", "--fix"])),
    (p_hca_nodes, "only nvidia.com/gpu tolerated",
     lambda d: _ds(d).update(tolerations=[{"key": "nvidia.com/gpu", "operator": "Exists",
                                           "effect": "NoSchedule"}])),
    (p_hca_nodes, "no priorityClassName", lambda d: _ds(d).pop("priorityClassName")),
    (p_hca_nodes, "on nvidia.com/gpu.present nodes",
     lambda d: _ds(d).update(nodeSelector={"nvidia.com/gpu.present": "true"})),
    (p_monitoring, "the ServiceMonitor keeps only ibvf_.*",
     lambda d: _first(d, "ServiceMonitor")["spec"]["endpoints"][0]["metricRelabelings"][0]
     .update(regex="ibvf_.*")),
    (p_monitoring, "the ServiceMonitor on port 'metrics'",
     lambda d: _first(d, "ServiceMonitor")["spec"]["endpoints"][0].update(port="metrics")),
    (p_resources, "no memory limit",
     lambda d: _ds(d)["containers"][0]["resources"]["limits"].pop("memory")),
    (p_jobs, "backoffLimit 6", lambda d: _first(d, "Job")["spec"].update(backoffLimit=6)),
    (p_key_file, "the key Secret mounted as a volume, not by subPath",
     lambda d: [m.pop("subPath", None) for m in _client(d)["containers"][0]["volumeMounts"]
                if m["name"] == "key"]),
    (p_validate_pair, "both Jobs on one node",
     lambda d: _client(d)["nodeSelector"].update(
         {"kubernetes.io/hostname": _first(d, "Job", "server")["spec"]["template"]["spec"]
          ["nodeSelector"]["kubernetes.io/hostname"]})),
]


def self_test(docs):
    """Lines for each mutation: whether its policy caught it."""
    out = []
    for policy, what, brk in MUTATIONS:
        d = copy.deepcopy(docs)
        try:
            brk(d)
            v = policy(d)
        except (KeyError, IndexError, StopIteration, TypeError) as e:
            v = []
            what = f"{what}: the break itself failed: {e!r}"
        out.append((policy.__name__, what, v))
    return out
