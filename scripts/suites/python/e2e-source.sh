# Where the python suite's e2e tests come from, sourced by run.sh and key.sh: the client's
# repository at the newest commit this project has a snapshot of (master, August 2026; the 37.x
# tag is not in the snapshot), when this machine has that snapshot; otherwise only the tests the
# PyPI sdist ships.
E2E_COMMIT="${PYTHON_E2E_COMMIT:-024658493d124f046fc0a9827a2a3165cf2aee28}"
E2E_GIT="${PYTHON_E2E_GIT:-/work/.mirror/kubernetes-client+python/repo}"

e2e_snapshot_present() {
  git --git-dir="$E2E_GIT" cat-file -e "$E2E_COMMIT^{commit}" 2>/dev/null
}
