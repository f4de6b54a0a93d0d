#!/usr/bin/env bash
# Prints deploy/prometheus-alerts.yml as a PrometheusRule for the Prometheus operator, so the
# rules live in one file:
#
#   deploy/kubernetes/monitoring/prometheusrule.sh | kubectl apply -n <namespace> -f -
#
# LABELS="release=kube-prometheus-stack" adds labels your Prometheus's ruleSelector needs
# (comma-separated key=value).
set -euo pipefail
rules="$(dirname "$0")/../../prometheus-alerts.yml"
[ -r "$rules" ] || { echo "prometheusrule.sh: $rules not found" >&2; exit 1; }
echo "apiVersion: monitoring.coreos.com/v1"
echo "kind: PrometheusRule"
echo "metadata:"
echo "  name: sluice"
echo "  labels:"
echo "    app.kubernetes.io/name: sluice"
IFS=',' read -r -a extra <<< "${LABELS:-}"
for label in "${extra[@]}"; do
  [[ "$label" =~ ^([A-Za-z0-9./_-]+)=([A-Za-z0-9._-]*)$ ]] \
    || { echo "prometheusrule.sh: LABELS: '$label' (expected key=value)" >&2; exit 2; }
  echo "    ${BASH_REMATCH[1]}: \"${BASH_REMATCH[2]}\""
done
echo "spec:"
sed -e '/^#/d' -e 's/^\(.\)/  \1/' "$rules"
