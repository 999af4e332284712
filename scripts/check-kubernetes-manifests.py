#!/usr/bin/env python3
"""Checks that deploy/kubernetes's rendered manifests fit mend-server's drain (docs/server.md, "Shutdown" and
"Rolling deploy"), after kubernetes-validate has checked them against Kubernetes' schemas:

- the readiness probe is on /health/ready and the liveness probe on /health/live;
- the readiness probe's failureThreshold × periodSeconds is below MEND_DRAIN_DELAY (the instance is out of the load
  balancer before its listener closes);
- terminationGracePeriodSeconds covers the preStop sleep + MEND_DRAIN_DELAY + the requests in flight
  (MEND_PROVIDER_TIMEOUT × MEND_PROVIDER_MAX_ATTEMPTS, their defaults when unset);
- rolling updates never take an instance away before its successor is ready (maxUnavailable 0), a
  PodDisruptionBudget selects the pods, and the secrets come from a Secret mounted as files, read through `_FILE`.

    python3 scripts/check-kubernetes-manifests.py <rendered.yaml>   (kubectl kustomize deploy/kubernetes > rendered.yaml)
"""
import re
import sys

import yaml


def seconds(text):
    """A mend-server duration (900, 900s, 15m, 12h, 30d, 250ms) in seconds."""
    match = re.fullmatch(r"(\d+)(ms|s|m|h|d)?", text.strip())
    if not match:
        raise SystemExit(f"not a duration: {text!r}")
    number, unit = int(match.group(1)), match.group(2) or "s"
    return number * {"ms": 0.001, "s": 1, "m": 60, "h": 3600, "d": 86400}[unit]


def main(path):
    with open(path) as file:
        documents = [document for document in yaml.safe_load_all(file) if document]
    kinds = {}
    for document in documents:
        kinds.setdefault(document["kind"], []).append(document)
    failures = []

    def expect(condition, message):
        if not condition:
            failures.append(message)

    (deployment,) = kinds["Deployment"]
    (config,) = kinds["ConfigMap"]
    (secret,) = kinds["Secret"]
    settings = config["data"]
    pod = deployment["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    ports = {port["name"]: port["containerPort"] for port in container["ports"]}
    expect(ports.get("http") == int(settings.get("MEND_PORT", "8080")), f"container port {ports} is not MEND_PORT")
    expect(settings.get("MEND_HOST") == "0.0.0.0", "MEND_HOST must be 0.0.0.0 in a pod")

    readiness, liveness = container["readinessProbe"], container["livenessProbe"]
    expect(readiness["httpGet"]["path"] == "/health/ready", "the readiness probe is not /health/ready")
    expect(liveness["httpGet"]["path"] == "/health/live", "the liveness probe is not /health/live")
    drain = seconds(settings.get("MEND_DRAIN_DELAY", "5s"))
    unready = readiness.get("failureThreshold", 3) * readiness.get("periodSeconds", 10)
    expect(unready < drain, f"readiness failureThreshold × periodSeconds = {unready} s is not below "
                            f"MEND_DRAIN_DELAY = {drain} s")

    pre_stop = container.get("lifecycle", {}).get("preStop", {}).get("sleep", {}).get("seconds", 0)
    in_flight = seconds(settings.get("MEND_PROVIDER_TIMEOUT", "10s")) * int(
        settings.get("MEND_PROVIDER_MAX_ATTEMPTS", "3"))
    grace = pod.get("terminationGracePeriodSeconds", 30)
    needed = pre_stop + drain + in_flight
    expect(grace > needed, f"terminationGracePeriodSeconds {grace} s does not cover preStop {pre_stop} s + "
                           f"drain {drain} s + requests in flight {in_flight} s")

    strategy = deployment["spec"]["strategy"]
    expect(strategy["type"] == "RollingUpdate" and strategy["rollingUpdate"]["maxUnavailable"] == 0,
           "a rolling update may take an instance away before its successor is ready")
    labels = deployment["spec"]["template"]["metadata"]["labels"]
    (budget,) = kinds["PodDisruptionBudget"]
    expect(budget["spec"]["selector"]["matchLabels"].items() <= labels.items(),
           "the PodDisruptionBudget does not select the pods")
    (service,) = kinds["Service"]
    expect(service["spec"]["selector"].items() <= labels.items(), "the Service does not select the pods")

    environment = {variable["name"]: variable.get("value") for variable in container.get("env", [])}
    for name in ("MEND_APP_SECRET", "MEND_SIGNING_KEYS", "DATABASE_URL"):
        expect(name not in environment and name not in settings, f"{name} is set in plain text")
        expect(name + "_FILE" in environment, f"{name}_FILE is not set")
    volumes = {volume["name"]: volume for volume in pod["volumes"]}
    mounted = [volumes[mount["name"]] for mount in container["volumeMounts"]]
    expect(any(volume.get("secret", {}).get("secretName") == secret["metadata"]["name"] for volume in mounted),
           "the Secret is not mounted")

    for failure in failures:
        print(f"FAIL {failure}")
    print(f"manifests: {len(documents)} objects ({', '.join(sorted(kinds))}); readiness out after {unready} s < "
          f"drain {drain:g} s; grace {grace} s > preStop {pre_stop} s + drain {drain:g} s + in flight {in_flight:g} s; "
          f"{len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
