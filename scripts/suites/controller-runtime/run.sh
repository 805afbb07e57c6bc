#!/usr/bin/env bash
# controller-runtime's own test suites (its newest release, from the Go module proxy) against one API
# server, following the contract in ../README.md:
#
#   scripts/suites/controller-runtime/run.sh embedded|real   # SUITE_WORK, SUITE_RESULTS, REPO (, REFEREE)
#   scripts/suites/controller-runtime/run.sh build           # only compile (or find) the test binaries
#   CR_PACKAGES="pkg/client pkg/cache" ...                   # a subset of the packages below
#
# Each package whose tests start envtest is compiled once into a test binary (`go test -c`), cached
# under ~/.cache/controller-runtime-ts/suites/controller-runtime-<version>/, and run against a fresh
# server from scripts/suites/serve.ts with USE_EXISTING_CLUSTER=true: envtest then uses that server
# as it would use an existing cluster, with client-go's defaults (protobuf for built-in kinds).
set -euo pipefail
# The workspace's packages resolve to their sources (as under npm scripts, .npmrc): a dist/ left
# by an earlier build must never stand in for them.
export NODE_OPTIONS="${NODE_OPTIONS:+$NODE_OPTIONS }--conditions=cr-source"

VERSION=v0.25.2
MODULE=sigs.k8s.io/controller-runtime
# Every package whose tests start envtest (grep -l envtest **/*_test.go), except
# pkg/internal/testing/controlplane, which tests starting kube-apiserver and etcd binaries itself.
# The longest first (about 70s each for cache and manager), so that two at once finish together.
PACKAGES="pkg/cache pkg/manager pkg/internal/controller pkg/client pkg/webhook pkg/builder pkg/source
pkg/controller pkg/controller/controllerutil pkg/manager/internal/integration pkg/cluster pkg/handler
pkg/reconcile pkg/internal/recorder pkg/client/apiutil pkg/envtest pkg/metrics/filters"
PACKAGES="${CR_PACKAGES:-$PACKAGES}"
# Ginkgo stops a suite at this deadline and still reports; `timeout` is the backstop.
SPEC_TIMEOUT="${CR_SUITE_TIMEOUT:-20m}"
JOBS="${CR_JOBS:-2}"

here="$(cd "$(dirname "$0")" && pwd)"
REPO="${REPO:-$(cd "$here/../../.." && pwd)}"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/controller-runtime-ts/suites/controller-runtime-$VERSION"
src="$cache/src"
bin="$cache/bin"
log() { echo "controller-runtime: $*" >&2; }
binname() { echo "${1#pkg/}" | tr / _; }

# The module's source, copied out of the (read-only) module cache so `go test -c` may write go.sum
# entries; dependencies come from the Go module proxy, checked against the module's own go.sum.
build() {
  local t0=$SECONDS p
  export GOFLAGS="${GOFLAGS:+$GOFLAGS }-mod=mod"
  if [ ! -f "$src/.complete" ]; then
    log "fetching $MODULE@$VERSION from the Go module proxy"
    local dir
    dir="$(cd "$(mktemp -d)" && go mod download -json "$MODULE@$VERSION" | sed -n 's/^\s*"Dir": "\(.*\)",$/\1/p')"
    [ -d "$dir" ] || { log "the Go module proxy gave no $MODULE@$VERSION"; return 1; }
    rm -rf "$src" && mkdir -p "$cache" && cp -r "$dir" "$src" && chmod -R u+w "$src"
    (cd "$src" && go mod download)
    touch "$src/.complete"
  fi
  mkdir -p "$bin"
  for p in $PACKAGES; do
    local b; b="$bin/$(binname "$p").test"
    [ -x "$b" ] && continue
    log "compiling $p"
    (cd "$src" && go test -c -o "$b.tmp" "./$p") && mv "$b.tmp" "$b"
  done
  log "test binaries ready in $bin ($((SECONDS - t0))s)"
}

# run_package PKG: a fresh server, the package's test binary against it, one result line.
run_package() {
  local p=$1 n d spid t0 rc=0 kc
  n="$(binname "$p")"
  d="$SUITE_WORK/$n"
  kc="$d/kubeconfig"
  rm -rf "$d" && mkdir -p "$d"
  # Its own session, so that stopping it ends every process it started (kube-apiserver, etcd).
  if [ "$server" = real ]; then
    (cd "$REPO" && KUBEBUILDER_ASSETS="$REFEREE" exec setsid "$tsx" scripts/suites/serve.ts --kubeconfig "$kc") >"$d/server.log" 2>&1 &
  else
    (cd "$REPO" && exec env -u KUBEBUILDER_ASSETS setsid "$tsx" scripts/suites/serve.ts --kubeconfig "$kc") >"$d/server.log" 2>&1 &
  fi
  spid=$!
  for _ in $(seq 1 600); do
    [ -f "$kc" ] && break
    kill -0 "$spid" 2>/dev/null || break
    sleep 0.2
  done
  t0=$SECONDS
  if [ -f "$kc" ]; then
    # Ginkgo ends the suite at its own deadline and still writes its report; timeout is the backstop.
    (cd "$src/$p" && USE_EXISTING_CLUSTER=true KUBECONFIG="$kc" timeout -k 30s 40m \
      "$bin/$n.test" -test.v -test.timeout=35m -ginkgo.timeout="$SPEC_TIMEOUT" -ginkgo.v -ginkgo.no-color \
      -ginkgo.json-report="$d/report.json") >"$d/test.log" 2>&1 || rc=$?
  else
    echo "the $server server did not start: $(tail -3 "$d/server.log" | tr '\n' ' ')" >"$d/test.log"
    rc=125
  fi
  kill -TERM -- "-$spid" 2>/dev/null || true
  for _ in $(seq 1 60); do kill -0 -- "-$spid" 2>/dev/null || break; sleep 0.5; done
  kill -KILL -- "-$spid" 2>/dev/null || true
  wait "$spid" 2>/dev/null || true
  local line
  line="$("$tsx" "$here/parse.ts" --package "$p" --server "$server" --log "$d/test.log" \
    --report "$d/report.json" --rc "$rc" --seconds "$((SECONDS - t0))")"
  flock "$SUITE_RESULTS.lock" sh -c 'printf "%s\n" "$1" >>"$2"' _ "$line" "$SUITE_RESULTS"
  log "$server $p: $(echo "$line" | sed -n 's/.*"passed":\([0-9]*\),"failed":\([0-9]*\),"skipped":\([0-9]*\).*/\1 passed, \2 failed, \3 skipped/p') in $((SECONDS - t0))s"
}

server="${1:-}"
case "$server" in
  build) build; exit 0 ;;
  embedded) ;;
  real) [ -x "${REFEREE:-}/kube-apiserver" ] || { log "REFEREE holds no kube-apiserver"; exit 1; } ;;
  *) echo "usage: $0 embedded|real|build" >&2; exit 2 ;;
esac
: "${SUITE_WORK:?}" "${SUITE_RESULTS:?}"
tsx="$REPO/node_modules/.bin/tsx"
[ -x "$tsx" ] || { log "no $tsx: run npm ci first"; exit 1; }
build
mkdir -p "$SUITE_WORK"
t0=$SECONDS
running=0
for p in $PACKAGES; do
  if [ "$running" -ge "$JOBS" ]; then wait -n || true; running=$((running - 1)); fi
  run_package "$p" &
  running=$((running + 1))
done
wait
log "$server: $(echo $PACKAGES | wc -w) packages in $((SECONDS - t0))s"
