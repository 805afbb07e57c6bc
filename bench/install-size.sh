#!/usr/bin/env bash
# What a production operator installs (issue 38): a project that depends on the library tarball
# LIB (and kubernetes-types) and, as a dev dependency, on the server tarball SERVER, installed with
# `npm ci --omit=dev` as an image's build stage does. Prints node_modules' size and file count,
# whether any file of the server or of its own dependencies (CEL, RE2) is there, and
# the library's cold import time (median and min–max of 9 fresh processes).
#   npm run build && (cd packages/controller-runtime && npm pack --pack-destination /tmp/p) &&
#   (cd packages/apiserver && npm pack --pack-destination /tmp/p) &&
#   bash bench/install-size.sh /tmp/p/controller-runtime-*.tgz /tmp/p/controller-runtime-apiserver-*.tgz
# An older single-package tarball works as LIB alone (the "before" of the split).
set -euo pipefail
lib=$(realpath "$1"); server=${2:+$(realpath "$2")}
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
cd "$dir"
dev=""; [ -n "$server" ] && dev=", \"devDependencies\": {\"controller-runtime-apiserver\": \"file:$server\"}"
echo "{\"name\":\"operator\",\"private\":true,\"type\":\"module\",\"dependencies\":{\"controller-runtime\":\"file:$lib\",\"kubernetes-types\":\"^1.30.0\"}$dev}" > package.json
npm install --package-lock-only --no-audit --no-fund --ignore-scripts >/dev/null 2>&1
NODE_OPTIONS= npm ci --omit=dev --no-audit --no-fund --ignore-scripts >/dev/null 2>&1
bytes=$(du -sb node_modules | cut -f1); files=$(find node_modules -type f | wc -l)
server_files=$(find node_modules -path '*controller-runtime-apiserver*' -type f -o -path '*/apiserver/*' -type f | wc -l)
# @bufbuild/protobuf is the library's own (kube's protobuf for built-in kinds); CEL and RE2 are the server's.
server_deps=$( (ls -d node_modules/@bufbuild/cel node_modules/re2js 2>/dev/null || true) | tr "\n" " ")
printf 'node_modules: %.1f MB in %d files; server files: %d; server-only dependencies: %s\n' \
  "$(echo "$bytes / 1000000" | bc -l)" "$files" "$server_files" "${server_deps:-none}"
times=()
for _ in 1 2 3 4 5 6 7 8 9; do
  times+=("$(NODE_OPTIONS= node --input-type=module -e 'const t=performance.now(); await import("controller-runtime"); console.log((performance.now()-t).toFixed(1))')")
done
sorted=$(printf '%s\n' "${times[@]}" | sort -n)
echo "cold import of controller-runtime: median $(echo "$sorted" | sed -n 5p) ms (min $(echo "$sorted" | head -1), max $(echo "$sorted" | tail -1)), 9 fresh processes"
