#!/usr/bin/env bash
# Builds the real control plane the project is judged against: kube-apiserver and kubectl of one
# Kubernetes release, and the etcd that release's own go.mod requires, from the Go module proxy
# (no downloaded binaries). The binaries land in a cache folder the machine keeps between a session
# and CI; a second run finds them and takes well under a second.
#
#   scripts/referee/build.sh            # builds (or finds) the referee; prints its folder last
#   KUBEBUILDER_ASSETS="$(scripts/referee/build.sh | tail -1)" npm run test:only
#
# The version is named once, in packages/apiserver/src/server-version.ts: the release the embedded server
# follows is the release it is judged against.
# Environment: REFEREE_VERSION overrides it (an older release, for an older-server check);
# REFEREE_CACHE is where the binaries go (default ~/.cache/controller-runtime-ts/referee).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"

named="$(sed -n 's/^export const KUBERNETES_VERSION = "\(v[0-9.]*\)";$/\1/p' "$here/../../packages/apiserver/src/server-version.ts")"
version="${REFEREE_VERSION:-$named}"
[ -n "$version" ] || {
  echo "build.sh: no KUBERNETES_VERSION found in packages/apiserver/src/server-version.ts" >&2
  exit 1
}
minor="${version#v1.}"
minor="${minor%%.*}"
staging="v0.${version#v1.}" # k8s.io/api and the other staging modules: v0.X.Y of release v1.X.Y
cache="${REFEREE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/controller-runtime-ts/referee}"
out="$cache/$version"

if [ -x "$out/kube-apiserver" ] && [ -x "$out/kubectl" ] && [ -x "$out/etcd" ] && [ -f "$out/.complete" ]; then
  echo "$out"
  exit 0
fi

command -v go >/dev/null || {
  echo "build.sh: Go is needed to build the referee (kube-apiserver $version); install Go 1.26 or point KUBEBUILDER_ASSETS at prebuilt binaries" >&2
  exit 1
}

work="$cache/.src-$version"
mkdir -p "$work/kube" "$work/etcd" "$out"
log() { echo "referee: $*" >&2; }

# k8s.io/kubernetes is published with its staging modules required at v0.0.0 and replaced by local
# folders that a dependency's go.mod cannot use; each is pinned here to its own release instead.
log "resolving k8s.io/kubernetes@$version"
kmod="$(cd "$work/kube" && GOFLAGS=-mod=mod go mod download -json "k8s.io/kubernetes@$version" | sed -n 's/^\s*"GoMod": "\(.*\)",$/\1/p')"
[ -f "$kmod" ] || {
  echo "build.sh: the Go module proxy gave no go.mod for k8s.io/kubernetes@$version" >&2
  exit 1
}
mods="$(sed -n 's#^\s*\(k8s.io/[a-z0-9-]*\) => \./staging/.*#\1#p' "$kmod")"
etcd_version="$(sed -n 's#^\s*go.etcd.io/etcd/client/v3 \(v[0-9.]*\).*#\1#p' "$kmod" | head -1)"
go_version="$(sed -n 's/^go \([0-9.]*\)$/\1/p' "$kmod")"

{
  echo "module referee/kube"
  echo
  echo "go $go_version"
  echo
  echo "require k8s.io/kubernetes $version"
  echo
  for m in $mods; do echo "replace $m => $m $staging"; done
} >"$work/kube/go.mod"
cat >"$work/etcd/go.mod" <<EOF
module referee/etcd

go $go_version

require go.etcd.io/etcd/server/v3 $etcd_version
EOF

# What /version reports, as a release build sets it (hack/lib/version.sh).
ldflags="-s -w"
for pkg in k8s.io/client-go/pkg/version k8s.io/component-base/version; do
  ldflags="$ldflags -X $pkg.gitVersion=$version -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor"
  ldflags="$ldflags -X $pkg.gitTreeState=clean -X $pkg.buildDate=1970-01-01T00:00:00Z"
done

export CGO_ENABLED=0 GOFLAGS=-mod=mod
for cmd in kube-apiserver kubectl; do
  log "building $cmd $version (a few minutes on a fresh machine)"
  (cd "$work/kube" && go build -trimpath -tags providerless -ldflags "$ldflags" -o "$out/$cmd" "k8s.io/kubernetes/cmd/$cmd")
done
log "building etcd $etcd_version"
(cd "$work/etcd" && go build -trimpath -ldflags "-s -w" -o "$out/etcd" go.etcd.io/etcd/server/v3)

echo "$version etcd $etcd_version" >"$out/.complete"
log "kube-apiserver, kubectl and etcd in $out"
echo "$out"
