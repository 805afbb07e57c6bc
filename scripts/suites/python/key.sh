# Printed into the python suite's key for the real server's cached results (../run.sh): which
# tests run depends on whether this machine has the client's repository snapshot, so results
# taken without it are not compared with a run that has it.
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=e2e-source.sh
. "$here/e2e-source.sh"
if e2e_snapshot_present; then echo "e2e tests of $E2E_COMMIT"; else echo "the sdist's e2e tests only"; fi
