#!/usr/bin/env python3
"""spec.py FILE KIND NAME CONTAINER: what a kubelet would run for one
container of one object in a manifest, as tab-separated lines that
docker/test reads to run the image the same way without a cluster:

  user      UID:GID         runAsUser/runAsGroup, the container's over the pod's
  nonroot   true|false      runAsNonRoot
  roroot    true|false      readOnlyRootFilesystem
  port      NAME NUMBER     each containerPort
  entry     image|command   whether argv starts with the image's ENTRYPOINT
  arg       WORD            command (if any) then args, one per line
  env       NAME=VALUE      each env entry with a literal value
  mount     PATH ro|rw KIND one per volumeMount; KIND: emptyDir, pvc or other
  probe     KIND PATH PORT  readiness/liveness httpGet probes
  count     N               a Job's completions

Only what the examples under docker/k8s use is read; anything else in the
container (valueFrom, exec probes) is reported on stderr and exits 2, so
an example cannot grow a field the test silently ignores.
"""
import sys

import yaml


def fail(msg):
    sys.stderr.write(f"spec.py: {msg}\n")
    sys.exit(2)


def main():
    if len(sys.argv) != 5:
        fail("usage: spec.py FILE KIND NAME CONTAINER")
    path, kind, name, cname = sys.argv[1:]
    with open(path, encoding="utf-8") as f:
        docs = [d for d in yaml.safe_load_all(f) if d]
    obj = next((d for d in docs if d.get("kind") == kind and d["metadata"]["name"] == name), None)
    if obj is None:
        fail(f"{path}: no {kind} named {name}")
    pod = obj["spec"]["template"]["spec"] if "template" in obj["spec"] else obj["spec"]
    ctr = next((c for c in pod["containers"] if c["name"] == cname), None)
    if ctr is None:
        fail(f"{path}: {kind} {name} has no container {cname}")

    psc = pod.get("securityContext", {})
    csc = ctr.get("securityContext", {})

    def sc(key):
        return csc.get(key, psc.get(key))

    out = [("user", f"{sc('runAsUser')}:{sc('runAsGroup')}"),
           ("nonroot", str(bool(sc("runAsNonRoot"))).lower()),
           ("roroot", str(bool(csc.get("readOnlyRootFilesystem"))).lower())]
    for p in ctr.get("ports", []):
        out.append(("port", f"{p.get('name', '')}\t{p['containerPort']}"))
    out.append(("entry", "command" if "command" in ctr else "image"))
    for word in ctr.get("command", []) + ctr.get("args", []):
        out.append(("arg", str(word)))
    for e in ctr.get("env", []):
        if "value" not in e:
            fail(f"{path}: env {e['name']} has no literal value")
        out.append(("env", f"{e['name']}={e['value']}"))
    volumes = {v["name"]: v for v in pod.get("volumes", [])}
    for m in ctr.get("volumeMounts", []):
        v = volumes[m["name"]]
        vkind = ("emptyDir" if "emptyDir" in v
                 else "pvc" if "persistentVolumeClaim" in v else "other")
        out.append(("mount", f"{m['mountPath']}\t{'ro' if m.get('readOnly') else 'rw'}\t{vkind}"))
    for pkind in ("readinessProbe", "livenessProbe"):
        if pkind not in ctr:
            continue
        get = ctr[pkind].get("httpGet")
        if get is None:
            fail(f"{path}: {cname}'s {pkind} is not an httpGet")
        out.append(("probe", f"{pkind[:-5]}\t{get['path']}\t{get['port']}"))
    if kind == "Job":
        out.append(("count", str(obj["spec"]["completions"])))
    for key, value in out:
        print(f"{key}\t{value}")


if __name__ == "__main__":
    main()
