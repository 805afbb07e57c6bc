#!/usr/bin/env bash
# Runs others' test suites against the embedded API server and against the real kube-apiserver
# (the referee), and reports where the embedded server does worse. See README.md.
#
#   scripts/suites/run.sh                      # every suite (a subfolder with a run.sh)
#   scripts/suites/run.sh controller-runtime   # one suite
#   SUITES_SERVERS=embedded scripts/suites/run.sh   # one side only
#
# Environment: SUITES_SERVERS ("embedded real" by default; real is skipped when the referee is not
# built), REFEREE (the folder with kube-apiserver, etcd and kubectl; default: the one
# scripts/referee/build.sh fills for the release the embedded server follows), SUITES_OUT (where
# logs and results go; default .tmp/suites/<time>), SUITES_JOBS (suites at a time, 2). Exits 1
# iff the embedded server does worse than the real one for some package; a suite that cannot run
# at all is reported but judged by its missing packages.
set -uo pipefail
# The workspace's packages resolve to their sources (as under npm scripts, .npmrc): a dist/ left
# by an earlier build must never stand in for them.
export NODE_OPTIONS="${NODE_OPTIONS:+$NODE_OPTIONS }--conditions=cr-source"
here="$(cd "$(dirname "$0")" && pwd)"
REPO="$(cd "$here/../.." && pwd)"
export REPO

if [ $# -gt 0 ]; then
  suites=("$@")
else
  suites=()
  for f in "$here"/*/run.sh; do [ -f "$f" ] && suites+=("$(basename "$(dirname "$f")")"); done
fi
for s in "${suites[@]}"; do
  [ -f "$here/$s/run.sh" ] || { echo "suites: no suite $s (no $here/$s/run.sh)" >&2; exit 2; }
done

servers="${SUITES_SERVERS:-embedded real}"
if [ -z "${REFEREE:-}" ]; then
  # The version is named once, in packages/apiserver/src/server-version.ts.
  version="$(sed -n 's/^export const KUBERNETES_VERSION = "\(v[0-9.]*\)";$/\1/p' "$REPO/packages/apiserver/src/server-version.ts")"
  REFEREE="${REFEREE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/controller-runtime-ts/referee}/$version"
fi
export REFEREE
case " $servers " in
  *" real "*)
    if [ ! -f "$REFEREE/.complete" ] || [ ! -x "$REFEREE/kube-apiserver" ]; then
      echo "suites: no referee in $REFEREE (scripts/referee/build.sh builds it); running on embedded only" >&2
      servers="${servers//real/}"
    fi
    ;;
esac

out="${SUITES_OUT:-$REPO/.tmp/suites/$(date -u +%Y%m%dT%H%M%SZ)}"
mkdir -p "$out"
results="$out/results.jsonl"
: >"$results"
# The real server's results depend only on the suite (its files here, the version they pin) and
# the referee's release, never on this project's server: kept per both, so a landing that changed
# neither runs the suites against the embedded server alone. SUITES_REAL_CACHE=0 runs them again.
real_cache="${XDG_CACHE_HOME:-$HOME/.cache}/controller-runtime-ts/suites/real-results"
# A suite whose tests depend on more than its files prints that from its key.sh (python: whether
# the client's repository snapshot is on this machine).
suite_key() {
  (cd "$here" && find "$1" serve.ts -type f ! -name '*.pyc' -print0 | sort -z | xargs -0 sha256sum;
    basename "$REFEREE"; if [ -f "$1/key.sh" ]; then bash "$1/key.sh"; fi) | sha256sum | cut -c1-16
}
# One suite on each server in turn, its results in its own file (suites run side by side, and each
# reads back the last line it wrote), appended to $results once all have ended.
run_suite() {
  local s="$1" server cached t0 rc
  for server in $servers; do
    cached="$real_cache/$s-$(suite_key "$s").jsonl"
    if [ "$server" = real ] && [ "${SUITES_REAL_CACHE:-1}" != 0 ] && [ -s "$cached" ]; then
      echo "suites: $s on real: the results of an earlier run of this suite and referee ($cached)" >&2
      cat "$cached" >>"$out/$s/results.jsonl"
      continue
    fi
    echo "suites: $s on $server (logs in $out/$s/$server)" >&2
    t0=$SECONDS
    mkdir -p "$out/$s/$server"
    SUITE_WORK="$out/$s/$server" SUITE_RESULTS="$out/$s/results.jsonl" bash "$here/$s/run.sh" "$server" 2>&1 |
      tee "$out/$s/$server.log" >&2
    rc=${PIPESTATUS[0]}
    [ "$rc" = 0 ] || echo "suites: $s could not run on $server (exit $rc); see $out/$s/$server.log" >&2
    if [ "$server" = real ] && [ "$rc" = 0 ]; then
      mkdir -p "$real_cache"
      node -e 'const [file, suite] = process.argv.slice(1);
        for (const l of require("fs").readFileSync(file, "utf8").split("\n")) {
          if (!l.trim()) continue;
          const r = JSON.parse(l);
          if (r.suite === suite && r.server === "real") console.log(l);
        }' "$out/$s/results.jsonl" "$s" >"$cached.tmp" && mv "$cached.tmp" "$cached"
    fi
    echo "suites: $s on $server took $((SECONDS - t0))s" >&2
  done
}
# Suites side by side, SUITES_JOBS at a time (2 by default), in the order given: most of their time
# is spent waiting (on watch timeouts, on servers starting), so two share 2 cores (issue #43: one
# after the other, the four took 9 minutes of CI). Their lines are interleaved, each prefixed with
# its suite's name; each suite's own log is in $out/<suite>/<server>.log.
jobs="${SUITES_JOBS:-2}"
running=0
for s in "${suites[@]}"; do
  mkdir -p "$out/$s"
  : >"$out/$s/results.jsonl"
  if [ "$running" -ge "$jobs" ]; then
    wait -n || true
    running=$((running - 1))
  fi
  run_suite "$s" &
  running=$((running + 1))
done
wait
for s in "${suites[@]}"; do cat "$out/$s/results.jsonl" >>"$results"; done
tsx="$REPO/node_modules/.bin/tsx"
# A package judged worse is run once more on embedded before the verdict: others' specs bound by
# time fail now and then on a busy machine, on either server, and one run cannot tell that from a
# difference. A spec counts only if it does worse both times; the report lists the others as flaky.
# SUITES_CONFIRM=0 judges the first run alone.
"$tsx" "$here/report.ts" "$results" --worse-list "$out/worse.tsv" >/dev/null
rerun="$out/rerun.jsonl"
: >"$rerun"
if [ -s "$out/worse.tsv" ] && [ "${SUITES_CONFIRM:-1}" != 0 ] && [[ " $servers " == *" embedded "* ]]; then
  for s in $(cut -f1 "$out/worse.tsv" | sort -u); do
    pkgs="$(awk -F'\t' -v s="$s" '$1 == s { print $2 }' "$out/worse.tsv" | tr '\n' ' ')"
    # Each suite's own subset variable (see its run.sh); the regular expressions match whole names.
    alt="$(printf '%s\n' $pkgs | sed 's/[.[\*^$()+?{|]/\\&/g' | paste -sd'|')"
    echo "suites: $s on embedded again, to confirm: $pkgs" >&2
    mkdir -p "$out/$s/embedded-again"
    CR_PACKAGES="$pkgs" K8S_SIGS="$pkgs" CLIENT_GO_GROUPS="^($alt)\$" PYTHON_GROUPS="^kubernetes/($alt)\$" \
      SUITE_WORK="$out/$s/embedded-again" SUITE_RESULTS="$rerun" bash "$here/$s/run.sh" embedded 2>&1 |
      tee "$out/$s/embedded-again.log" >&2
  done
fi
"$tsx" "$here/report.ts" "$results" --rerun "$rerun" | tee "$out/report.md"
exit "${PIPESTATUS[0]}"
