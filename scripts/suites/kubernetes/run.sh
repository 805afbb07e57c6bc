#!/usr/bin/env bash
# Kubernetes' own conformance tests (e2e.test of the release the embedded server follows, from the
# Go module proxy) against one API server, following the contract in ../README.md:
#
#   scripts/suites/kubernetes/run.sh embedded|real   # SUITE_WORK, SUITE_RESULTS, REPO, REFEREE
#   scripts/suites/kubernetes/run.sh build           # only compile (or find) e2e.test
#   K8S_SIGS="sig-auth sig-cli" ...                  # a subset of the packages below
#   K8S_FOCUS='Watchers' ...                         # only the selected tests matching this regex
#
# conformance.tsv beside this file selects the [Conformance] tests that need no node and no kubelet
# (and says why each other one is left out). One "package" per SIG: a fresh server each, from
# scripts/suites/serve.ts; on embedded with the cluster simulation on (--simulate: garbage
# collection, namespace lifecycle, workloads...), as `npm start` runs it; on real, kube-apiserver
# and etcd alone (no kube-controller-manager, no node).
set -euo pipefail
# The workspace's packages resolve to their sources (as under npm scripts, .npmrc): a dist/ left
# by an earlier build must never stand in for them.
export NODE_OPTIONS="${NODE_OPTIONS:+$NODE_OPTIONS }--conditions=cr-source"

here="$(cd "$(dirname "$0")" && pwd)"
REPO="${REPO:-$(cd "$here/../../.." && pwd)}"
# The version is named once, in packages/apiserver/src/server-version.ts (as for the referee).
VERSION="$(sed -n 's/^export const KUBERNETES_VERSION = "\(v[0-9.]*\)";$/\1/p' "$REPO/packages/apiserver/src/server-version.ts")"
[ -n "$VERSION" ] || { echo "kubernetes: no KUBERNETES_VERSION in packages/apiserver/src/server-version.ts" >&2; exit 1; }
STAGING="v0.${VERSION#v1.}" # k8s.io/api and the other staging modules: v0.X.Y of release v1.X.Y
# The longest first, so that two at once finish together.
SIGS="sig-api-machinery sig-apps sig-node sig-auth sig-network sig-storage sig-cli sig-scheduling sig-instrumentation"
SIGS="${K8S_SIGS:-$SIGS}"
JOBS="${K8S_JOBS:-2}"
# Ginkgo processes per package (its CLI runs e2e.test in parallel as Kubernetes' CI does; [Serial]
# specs run alone at the end): most of a spec's time is spent waiting, so a few share 2 cores.
PROCS="${K8S_PROCS:-4}"
# Ginkgo stops a package at this deadline and still reports; `timeout` is the backstop. A spec
# that waits for what a server alone never does (a controller's status, a ready pod) takes up to
# the framework's own timeouts (1 to 5 minutes) to fail.
SUITE_TIMEOUT="${K8S_SUITE_TIMEOUT:-50m}"

cache="${XDG_CACHE_HOME:-$HOME/.cache}/controller-runtime-ts/suites/kubernetes-$VERSION"
bin="$cache/bin/e2e.test"
ginkgo="$cache/bin/ginkgo"
log() { echo "kubernetes: $*" >&2; }

# e2e.test from k8s.io/kubernetes@VERSION, its staging modules pinned by `replace` to their own
# release (as scripts/referee/build.sh does), without the cloud providers (-tags providerless).
build() {
  [ -x "$bin" ] && [ -x "$ginkgo" ] && return 0
  command -v go >/dev/null || { log "Go is needed to build e2e.test (1.26)"; return 1; }
  local t0=$SECONDS kmod mods m
  mkdir -p "$cache/mod" "$cache/bin"
  log "resolving k8s.io/kubernetes@$VERSION"
  kmod="$(cd "$cache/mod" && GOFLAGS=-mod=mod go mod download -json "k8s.io/kubernetes@$VERSION" | sed -n 's/^\s*"GoMod": "\(.*\)",$/\1/p')"
  [ -f "$kmod" ] || { log "the Go module proxy gave no go.mod for k8s.io/kubernetes@$VERSION"; return 1; }
  mods="$(sed -n 's#^\s*\(k8s.io/[a-z0-9-]*\) => \./staging/.*#\1#p' "$kmod")"
  {
    echo "module suites/kubernetes"
    echo
    echo "go $(sed -n 's/^go \([0-9.]*\)$/\1/p' "$kmod")"
    echo
    echo "require k8s.io/kubernetes $VERSION"
    echo
    for m in $mods; do echo "replace $m => $m $STAGING"; done
  } >"$cache/mod/go.mod"
  log "building e2e.test $VERSION (about 10 minutes on a fresh machine)"
  if [ ! -x "$bin" ]; then
    (cd "$cache/mod" && CGO_ENABLED=0 GOFLAGS=-mod=mod go test -c -trimpath -tags providerless \
      -o "$bin.tmp" k8s.io/kubernetes/test/e2e) && mv "$bin.tmp" "$bin" || return 1
  fi
  # Ginkgo's CLI, of the version the release's go.mod requires, to run e2e.test in parallel.
  (cd "$cache/mod" && CGO_ENABLED=0 GOFLAGS=-mod=mod go build -o "$ginkgo" github.com/onsi/ginkgo/v2/ginkgo)
  log "e2e.test and ginkgo built in $((SECONDS - t0))s: $bin"
}

# The selected tests of one SIG as a Ginkgo focus: their full names, quoted, one alternation
# (anchored at the end only: the text Ginkgo matches has more before the SIG's name).
focus_of() {
  awk -F'\t' -v sig="[$1]" '$1 == "run" && index($2, sig) == 1 { print $2 }' "$here/conformance.tsv" |
    if [ -n "${K8S_FOCUS:-}" ]; then grep -E -- "$K8S_FOCUS" || true; else cat; fi |
    python3 -c 'import re, sys
names = [l.rstrip("\n") for l in sys.stdin if l.strip()]
print("|".join(re.escape(n) + "$" for n in names))'
}

# run_sig SIG: a fresh server, e2e.test focused on the SIG's selected tests, one result line.
run_sig() {
  local sig=$1 d spid t0 rc=0 kc focus nodes=0
  d="$SUITE_WORK/$sig"
  kc="$d/kubeconfig"
  rm -rf "$d" && mkdir -p "$d"
  focus="$(focus_of "$sig")"
  [ -n "$focus" ] || return 0
  # Its own session, so that stopping it ends every process it started (kube-apiserver, etcd).
  if [ "$server" = real ]; then
    (cd "$REPO" && KUBEBUILDER_ASSETS="$REFEREE" exec setsid "$tsx" scripts/suites/serve.ts --kubeconfig "$kc") >"$d/server.log" 2>&1 &
  else
    (cd "$REPO" && exec env -u KUBEBUILDER_ASSETS setsid "$tsx" scripts/suites/serve.ts --kubeconfig "$kc" --simulate) >"$d/server.log" 2>&1 &
    nodes=1
  fi
  spid=$!
  for _ in $(seq 1 600); do
    [ -f "$kc" ] && break
    kill -0 "$spid" 2>/dev/null || break
    sleep 0.2
  done
  t0=$SECONDS
  if [ -f "$kc" ]; then
    # No node to wait for (--allowed-not-ready-nodes=-1 skips the wait for nodes and kube-system
    # pods) and the number of nodes told (the simulation's one on embedded, none on real: counting
    # them fails with none); no default ServiceAccount to wait for (the ServiceAccount controller
    # is kube-controller-manager's); kubectl is the referee's, of the same release.
    (cd "$d" && NO_PROXY=127.0.0.1,localhost no_proxy=127.0.0.1,localhost HTTPS_PROXY= HTTP_PROXY= \
      https_proxy= http_proxy= timeout -k 30s 60m "$ginkgo" --procs="$PROCS" --focus="$focus" \
      --timeout="$SUITE_TIMEOUT" -v --no-color --json-report=report.json --output-dir="$d" "$bin" -- \
      --kubeconfig="$kc" --provider=skeleton \
      --allowed-not-ready-nodes=-1 --num-nodes="$nodes" --minStartupPods=0 --e2e-verify-service-account=false \
      --kubectl-path="$REFEREE/kubectl" --dump-logs-on-failure=false --report-dir="$d") >"$d/test.log" 2>&1 || rc=$?
  else
    echo "the $server server did not start: $(tail -3 "$d/server.log" | tr '\n' ' ')" >"$d/test.log"
    rc=125
  fi
  kill -TERM -- "-$spid" 2>/dev/null || true
  for _ in $(seq 1 60); do kill -0 -- "-$spid" 2>/dev/null || break; sleep 0.5; done
  kill -KILL -- "-$spid" 2>/dev/null || true
  wait "$spid" 2>/dev/null || true
  local line
  line="$("$tsx" "$here/parse.ts" --package "$sig" --server "$server" --log "$d/test.log" \
    --report "$d/report.json" --rc "$rc" --seconds "$((SECONDS - t0))")"
  flock "$SUITE_RESULTS.lock" sh -c 'printf "%s\n" "$1" >>"$2"' _ "$line" "$SUITE_RESULTS"
  log "$server $sig: $(echo "$line" | sed -n 's/.*"passed":\([0-9]*\),"failed":\([0-9]*\),"skipped":\([0-9]*\).*/\1 passed, \2 failed, \3 skipped/p') in $((SECONDS - t0))s"
}

server="${1:-}"
case "$server" in
  build) build; exit 0 ;;
  embedded | real) ;;
  *) echo "usage: $0 embedded|real|build" >&2; exit 2 ;;
esac
[ -x "${REFEREE:-}/kubectl" ] || { log "REFEREE holds no kubectl (scripts/referee/build.sh builds it)"; exit 1; }
if [ "$server" = real ]; then
  [ -x "$REFEREE/kube-apiserver" ] || { log "REFEREE holds no kube-apiserver"; exit 1; }
fi
: "${SUITE_WORK:?}" "${SUITE_RESULTS:?}"
tsx="$REPO/node_modules/.bin/tsx"
[ -x "$tsx" ] || { log "no $tsx: run npm ci first"; exit 1; }
build
mkdir -p "$SUITE_WORK"
t0=$SECONDS
running=0
for sig in $SIGS; do
  if [ "$running" -ge "$JOBS" ]; then wait -n || true; running=$((running - 1)); fi
  run_sig "$sig" &
  running=$((running + 1))
done
wait
log "$server: $(echo $SIGS | wc -w) packages in $((SECONDS - t0))s"
