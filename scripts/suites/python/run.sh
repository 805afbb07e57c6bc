#!/usr/bin/env bash
# The official Python client's own end-to-end tests (PyPI `kubernetes`, the release whose major
# matches the referee's minor: 37.x for Kubernetes 1.37), run against one server.
#
#   SUITE_WORK=DIR SUITE_RESULTS=FILE REPO=ROOT [REFEREE=DIR] bash scripts/suites/python/run.sh embedded|real
#
# One group per test file, each against a fresh server started by scripts/suites/serve.ts with
# --simulate (the suite was written for a kind cluster: pods must start, namespaces must go away).
# Appends one JSON line per group to $SUITE_RESULTS. Exits 0 when the tests ran, whatever they
# found; non-zero only when the suite could not run. See README.md beside this file.
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

VERSION="${PYTHON_CLIENT_VERSION:-37.0.2}"
# The e2e tests are not in the PyPI package: they come from the client's repository (e2e-source.sh).
# shellcheck source=e2e-source.sh
. "$here/e2e-source.sh"
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/controller-runtime-ts/suites/python-$VERSION"
TEST_TIMEOUT="${PYTHON_TEST_TIMEOUT:-120}"

log() { echo "python suite: $*" >&2; }

# --- install (once; a second run finds it) ---------------------------------------------------------
install() {
  local venv="$CACHE/venv" src="$CACHE/tree/kubernetes-$VERSION"
  if [ ! -f "$venv/.complete-$VERSION" ]; then
    log "installing kubernetes==$VERSION into $venv"
    rm -rf "$venv" "$CACHE/sdist"
    mkdir -p "$CACHE/sdist"
    python3 -m venv "$venv" &&
      "$venv/bin/pip" download -q --disable-pip-version-check --no-deps --no-binary :all: \
        -d "$CACHE/sdist" "kubernetes==$VERSION" || return 1
    # The sdist is the tree the tests run in (pytest imports `kubernetes` from it); the wheel of the
    # same release brings the dependencies.
    rm -rf "$CACHE/tree" && mkdir -p "$CACHE/tree" &&
      tar xzf "$CACHE/sdist/kubernetes-$VERSION.tar.gz" -C "$CACHE/tree" || return 1
    "$venv/bin/pip" install -q --disable-pip-version-check "kubernetes==$VERSION" \
      pytest==9.2.0 pytest-timeout==2.4.0 || return 1
    touch "$venv/.complete-$VERSION"
  fi
  if [ ! -f "$src/.e2e-$E2E_COMMIT" ]; then
    if e2e_snapshot_present; then
      rm -rf "$src/kubernetes/e2e_test" "$src/kubernetes/aio/e2e_test"
      git --git-dir="$E2E_GIT" archive --format=tar "$E2E_COMMIT" kubernetes/e2e_test kubernetes/aio/e2e_test 2>/dev/null |
        tar x -C "$src" || return 1
      [ -f "$src/kubernetes/e2e_test/base.py" ] || return 1
      touch "$src/.e2e-$E2E_COMMIT"
    else
      log "no snapshot of kubernetes-client/python at $E2E_GIT with commit $E2E_COMMIT:"
      log "only the e2e tests the PyPI sdist ships (kubernetes/dynamic, kubernetes/aio/dynamic) run,"
      log "with a stand-in for kubernetes/e2e_test/base.py (e2e_base_standin.py)"
      for pkg in kubernetes/e2e_test kubernetes/aio/e2e_test; do
        [ -f "$src/$pkg/base.py" ] && continue
        mkdir -p "$src/$pkg" && : >"$src/$pkg/__init__.py" &&
          cp "$here/e2e_base_standin.py" "$src/$pkg/base.py" || return 1
      done
    fi
  fi
}

start=$(date +%s)
install || {
  log "could not install the suite"
  exit 1
}
log "installed in $(($(date +%s) - start))s"
SRC="$CACHE/tree/kubernetes-$VERSION"
PY="$CACHE/venv/bin/python"

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
groups=()
for f in "$SRC"/kubernetes/e2e_test/test_*.py "$SRC"/kubernetes/aio/e2e_test/test_*.py \
  "$SRC"/kubernetes/dynamic/test_client.py "$SRC"/kubernetes/dynamic/test_discovery.py \
  "$SRC"/kubernetes/aio/dynamic/client_test.py "$SRC"/kubernetes/aio/dynamic/discovery_test.py; do
  [ -f "$f" ] && groups+=("${f#"$SRC"/}")
done
if [ -n "${PYTHON_GROUPS:-}" ]; then # a filter for trying one group: a regular expression
  selected=()
  for g in "${groups[@]}"; do [[ "$g" =~ $PYTHON_GROUPS ]] && selected+=("$g"); done
  groups=("${selected[@]}")
fi

for g in "${groups[@]}"; do
  name="${g#kubernetes/}"
  dir="$SUITE_WORK/${name//\//_}"
  rm -rf "$dir" && mkdir -p "$dir"
  t0=$(date +%s)
  if ! start_server "$dir" --simulate; then
    "$PY" "$here/results.py" --suite python --package "$name" --server "$server" \
      --error "the $server server did not start" >>"$SUITE_RESULTS"
    continue
  fi
  # pytest puts the sdist's root first on sys.path, so `kubernetes` is the sdist's copy of the
  # release (the same files as the installed wheel) with the e2e tests laid beside it.
  (cd "$SRC" && KUBECONFIG="$dir/kubeconfig" NO_PROXY=127.0.0.1,localhost no_proxy=127.0.0.1,localhost \
    HTTPS_PROXY= HTTP_PROXY= https_proxy= http_proxy= PYTHONDONTWRITEBYTECODE=1 \
    timeout 1800 "$PY" -m pytest -p no:cacheprovider -rfEs -v --timeout "$TEST_TIMEOUT" \
    --junitxml "$dir/junit.xml" "$g") >"$dir/pytest.log" 2>&1
  rc=$?
  stop_server
  "$PY" "$here/results.py" --suite python --package "$name" --server "$server" \
    --junit "$dir/junit.xml" --exit-code "$rc" >>"$SUITE_RESULTS"
  log "$name on $server: $(tail -1 "$SUITE_RESULTS" | "$PY" -c 'import json, sys
r = json.load(sys.stdin)
print("%d passed, %d failed, %d skipped" % (r["passed"], r["failed"], r["skipped"]))') in $(($(date +%s) - t0))s"
done
exit 0
