#!/usr/bin/env bash
# client-go v0.37.2 (the referee's release) against one server: tests of ours, in this folder,
# that drive client-go through what needs a real API server. See README.md beside this file.
#
#   SUITE_WORK=DIR SUITE_RESULTS=FILE REPO=ROOT [REFEREE=DIR] bash scripts/suites/client-go/run.sh embedded|real
#
# One group per test function, each against a fresh server started by scripts/suites/serve.ts.
# Appends one JSON line per group to $SUITE_RESULTS. Exits 0 when the tests ran, whatever they
# found; non-zero only when the suite could not run.
set -uo pipefail
# The workspace's packages resolve to their sources (as under npm scripts, .npmrc): a dist/ left
# by an earlier build must never stand in for them.
export NODE_OPTIONS="${NODE_OPTIONS:+$NODE_OPTIONS }--conditions=cr-source"

server="${1:-}"
case "$server" in embedded | real) ;; *)
  echo "usage: run.sh embedded|real" >&2
  exit 2
  ;;
esac
here="$(cd "$(dirname "$0")" && pwd)"
REPO="${REPO:-$(cd "$here/../../.." && pwd)}"
: "${SUITE_WORK:?SUITE_WORK must name a scratch folder}"
: "${SUITE_RESULTS:?SUITE_RESULTS must name the results file}"
mkdir -p "$SUITE_WORK"
SUITE_WORK="$(cd "$SUITE_WORK" && pwd)"

VERSION=0.37.2 # k8s.io/client-go, as go.mod requires it
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/controller-runtime-ts/suites/client-go-$VERSION"
# group name -> test function
GROUPS_ALL=(
  "crud-json:TestCRUDJSON"
  "crud-protobuf:TestCRUDProtobuf"
  "discovery:TestDiscovery"
  "watchlist:TestWatchList"
  "watch-expiry:TestWatchExpiry"
  "informer-reconnect:TestInformerReconnect"
  "leaderelection:TestLeaderElection"
)

log() { echo "client-go suite: $*" >&2; }

command -v go >/dev/null || {
  log "Go is needed (1.26)"
  exit 1
}
export GOMODCACHE="$CACHE/gomod" GOCACHE="$CACHE/gocache" GOFLAGS="-modcacherw -mod=readonly" GOTOOLCHAIN=local

# --- build (once per source; a second run finds the binary) ---------------------------------------
sum="$(cd "$here" && cat go.mod go.sum ./*_test.go | sha256sum | cut -c1-16)"
BIN="$CACHE/bin/clientgo-$sum.test"
start=$(date +%s)
if [ ! -x "$BIN" ]; then
  log "building the test binary into $BIN"
  mkdir -p "$CACHE/bin"
  (cd "$here" && go test -c -o "$BIN.tmp" .) && mv "$BIN.tmp" "$BIN" || {
    log "could not build the tests"
    exit 1
  }
fi
log "built in $(($(date +%s) - start))s"

# --- servers ---------------------------------------------------------------------------------------
if [ "$server" = real ]; then
  : "${REFEREE:?REFEREE must name the folder with kube-apiserver, etcd and kubectl}"
  [ -x "$REFEREE/kube-apiserver" ] && [ -x "$REFEREE/etcd" ] || {
    log "no kube-apiserver and etcd in $REFEREE"
    exit 1
  }
fi
# shellcheck source=../lib/server.sh
. "$here/../lib/server.sh"
trap 'stop_server' EXIT
trap 'exit 130' INT TERM

# --- groups ----------------------------------------------------------------------------------------
for entry in "${GROUPS_ALL[@]}"; do
  group="${entry%%:*}" test="${entry#*:}"
  if [ -n "${CLIENT_GO_GROUPS:-}" ] && ! [[ "$group" =~ $CLIENT_GO_GROUPS ]]; then continue; fi
  dir="$SUITE_WORK/$group"
  rm -rf "$dir" && mkdir -p "$dir"
  t0=$(date +%s)
  if ! start_server "$dir"; then
    python3 "$here/results.py" --suite client-go --package "$group" --server "$server" \
      --error "the $server server did not start" >>"$SUITE_RESULTS"
    continue
  fi
  (cd "$dir" && KUBECONFIG="$dir/kubeconfig" NO_PROXY=127.0.0.1,localhost no_proxy=127.0.0.1,localhost \
    HTTPS_PROXY= HTTP_PROXY= https_proxy= http_proxy= \
    timeout 900 "$BIN" -test.v=test2json -test.run "^$test\$" -test.timeout 14m) >"$dir/test.out" 2>&1
  rc=$?
  stop_server
  go tool test2json -t -p "$group" <"$dir/test.out" >"$dir/events.json" 2>/dev/null
  python3 "$here/results.py" --suite client-go --package "$group" --server "$server" \
    --events "$dir/events.json" --exit-code "$rc" >>"$SUITE_RESULTS"
  log "$group on $server: $(tail -1 "$SUITE_RESULTS" | python3 -c 'import json, sys
r = json.load(sys.stdin)
print("%d passed, %d failed, %d skipped" % (r["passed"], r["failed"], r["skipped"]))') in $(($(date +%s) - t0))s"
done
exit 0
