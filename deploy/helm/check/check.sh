#!/usr/bin/env bash
# Renders the chart and checks what it renders, on machines without a helm binary:
#   deploy/helm/check/check.sh [values files...]      (default: every file of the chart's ci/)
# 1. render: `helm template` when helm exists; else helmlite.go, Go's text/template with sprig, the
#    engine helm uses (needs Debian's golang-go golang-github-masterminds-sprig-dev golang-gopkg-yaml.v2-dev);
# 2. check-objects.cjs: YAML (duplicate keys refused), names, selectors, references between objects,
#    probes, resources and security contexts;
# 3. validate-schemas.cjs: every object against the Kubernetes OpenAPI schemas (npm kubernetes-models,
#    installed into tmp/helm-check).
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
chart="$root/deploy/helm/agent-platform"
work="$root/tmp/helm-check"
mkdir -p "$work"
[ "$#" -gt 0 ] || set -- "$chart"/ci/*.yaml

if command -v helm >/dev/null 2>&1; then
  render() { local args=(); for f in "$@"; do args+=(-f "$f"); done; helm template platform "$chart" --namespace agents "${args[@]}"; }
else
  if [ ! -x "$work/helmlite" ] || [ "$root/deploy/helm/check/helmlite.go" -nt "$work/helmlite" ]; then
    command -v go >/dev/null || { echo "no helm and no go: apt-get install golang-go golang-github-masterminds-sprig-dev golang-gopkg-yaml.v2-dev"; exit 2; }
    GO111MODULE=off GOPATH=/usr/share/gocode go build -o "$work/helmlite" "$root/deploy/helm/check/helmlite.go"
  fi
  render() { (cd "$chart" && "$work/helmlite" . "$@"); }
fi
if [ ! -d "$work/node_modules/kubernetes-models" ]; then
  npm install --prefix "$work" --no-save --no-audit --no-fund kubernetes-models@4 yaml@2 >/dev/null
fi
export NODE_PATH="$work/node_modules"

status=0
for values in "$@"; do
  echo "== $values"
  if ! render "$values" > "$work/rendered.yaml"; then echo "render failed"; status=1; continue; fi
  node "$root/deploy/helm/check/check-objects.cjs" "$work/rendered.yaml" "${EXTERNAL_SECRETS:-}" | tail -n 1 || status=1
  node "$root/deploy/helm/check/validate-schemas.cjs" "$work/rendered.yaml" || status=1
done
exit "$status"
