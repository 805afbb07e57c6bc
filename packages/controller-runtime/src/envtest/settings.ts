// The environment variables envtest reads, in one place, as controller-runtime's envtest reads them.

export type EnvironmentMode = "embedded" | "binaries" | "existing";

export interface EnvtestSettings {
  mode: EnvironmentMode;
  /** Path of the `etcd` binary (binaries mode). */
  etcdPath?: string;
  /** Path of the `kube-apiserver` binary (binaries mode). */
  kubeApiserverPath?: string;
  /** Whether the control plane's output goes to this process's stdout/stderr. */
  attachOutput: boolean;
  /** Milliseconds to wait for the control plane to start. */
  startTimeoutMs: number;
  /** Milliseconds to wait for the control plane to stop. */
  stopTimeoutMs: number;
}

export interface SettingsOverrides {
  useExistingCluster?: boolean;
  binaryAssetsDirectory?: string;
  attachControlPlaneOutput?: boolean;
  controlPlaneStartTimeoutMs?: number;
  controlPlaneStopTimeoutMs?: number;
}

function truthy(value: string | undefined): boolean {
  return value !== undefined && /^(1|t|true|y|yes)$/i.test(value.trim());
}

function duration(value: string | undefined, fallbackMs: number): number {
  if (!value) return fallbackMs;
  const match = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(value.trim());
  if (!match) throw new Error(`envtest: cannot read the duration ${JSON.stringify(value)}: write e.g. "60s"`);
  const n = Number(match[1]);
  return match[2] === "ms" ? n : match[2] === "m" ? n * 60_000 : n * 1000;
}

/**
 * Resolves the mode and binaries: `USE_EXISTING_CLUSTER=true` → the current kubeconfig;
 * `KUBEBUILDER_ASSETS` (or `TEST_ASSET_ETCD` + `TEST_ASSET_KUBE_APISERVER`) → real binaries;
 * otherwise the embedded API server. Options win over the environment.
 */
export function resolveSettings(overrides: SettingsOverrides, env: NodeJS.ProcessEnv): EnvtestSettings {
  const useExisting = overrides.useExistingCluster ?? truthy(env.USE_EXISTING_CLUSTER);
  const assets = overrides.binaryAssetsDirectory ?? env.KUBEBUILDER_ASSETS;
  const etcdPath = env.TEST_ASSET_ETCD ?? (assets ? `${assets}/etcd` : undefined);
  const kubeApiserverPath =
    env.TEST_ASSET_KUBE_APISERVER ?? (assets ? `${assets}/kube-apiserver` : undefined);
  let mode: EnvironmentMode = "embedded";
  if (useExisting) mode = "existing";
  else if (assets || (env.TEST_ASSET_ETCD && env.TEST_ASSET_KUBE_APISERVER)) mode = "binaries";
  return {
    mode,
    etcdPath,
    kubeApiserverPath,
    attachOutput: overrides.attachControlPlaneOutput ?? truthy(env.KUBEBUILDER_ATTACH_CONTROL_PLANE_OUTPUT),
    startTimeoutMs:
      overrides.controlPlaneStartTimeoutMs ?? duration(env.KUBEBUILDER_CONTROLPLANE_START_TIMEOUT, 60_000),
    stopTimeoutMs:
      overrides.controlPlaneStopTimeoutMs ?? duration(env.KUBEBUILDER_CONTROLPLANE_STOP_TIMEOUT, 60_000),
  };
}
