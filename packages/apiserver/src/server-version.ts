// The Kubernetes release the embedded server speaks: the one place that names it. What `/version`
// reports, the OpenAPI documents' `info.version`, and the release scripts/referee/build.sh builds
// as the real control plane the suite is judged against (it reads the version from this file),
// so the embedded server and its referee are always the same release.

/** The Kubernetes release whose behaviour the embedded server follows. */
export const KUBERNETES_VERSION = "v1.37.2";

const [major = "1", minor = "0"] = KUBERNETES_VERSION.slice(1).split(".");

/** What `/version` reports. `+embedded` is semver build metadata: it orders as the release. */
export const serverVersion = {
  major,
  minor,
  emulationMajor: major,
  emulationMinor: minor,
  minCompatibilityMajor: major,
  minCompatibilityMinor: String(Number(minor) - 1),
  gitVersion: `${KUBERNETES_VERSION}+embedded`,
  gitCommit: "0000000000000000000000000000000000000000",
  gitTreeState: "clean",
  buildDate: "1970-01-01T00:00:00Z",
  goVersion: "go1.26.0",
  compiler: "gc",
  platform: `${process.platform}/${process.arch === "x64" ? "amd64" : process.arch}`,
};
