# Sourced by a suite's run.sh: a fresh server per package or group, through scripts/suites/serve.ts.
# Needs REPO, server (embedded or real), REFEREE (for real) and a `log` function. serve.ts keeps
# itself alive until SIGTERM and then stops the control plane it started.
TSX="$REPO/node_modules/.bin/tsx"
[ -x "$TSX" ] || {
  log "no $TSX: run npm ci in $REPO"
  exit 1
}
server_pid=""

# start_server DIR [serve.ts flags...]: a fresh server whose kubeconfig lands in DIR/kubeconfig.
start_server() {
  local dir="$1" i
  shift
  rm -f "$dir/kubeconfig"
  if [ "$server" = real ]; then
    (cd "$REPO" && KUBEBUILDER_ASSETS="$REFEREE" exec setsid "$TSX" \
      scripts/suites/serve.ts --kubeconfig "$dir/kubeconfig" "$@") >"$dir/server.log" 2>&1 &
  else
    (cd "$REPO" && exec env -u KUBEBUILDER_ASSETS setsid "$TSX" \
      scripts/suites/serve.ts --kubeconfig "$dir/kubeconfig" "$@") >"$dir/server.log" 2>&1 &
  fi
  server_pid=$!
  for i in $(seq 1 600); do
    [ -f "$dir/kubeconfig" ] && return 0
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.2
  done
  log "the $server server did not start (see $dir/server.log)"
  stop_server
  return 1
}

# Stops the server (SIGTERM), its process group after 30 s if it is still there.
stop_server() {
  [ -n "$server_pid" ] || return 0
  kill -TERM "$server_pid" 2>/dev/null
  local i
  for i in $(seq 1 150); do
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.2
  done
  kill -0 "$server_pid" 2>/dev/null && kill -KILL -- "-$server_pid" 2>/dev/null
  wait "$server_pid" 2>/dev/null
  server_pid=""
}
