// Probing a bucket the way S3-compatible storage answers HeadBucket: `HEAD <endpoint>/<bucket>`
// (path-style) answers 200 when the bucket exists and the caller may use it, 404 when there is no
// such bucket, 403 when it exists but access is denied. Anything else, including no answer at
// all, says the service cannot be relied on right now.

/** What a probe found, as the `Available` condition will say it. */
export interface ProbeResult {
  status: "True" | "False" | "Unknown";
  /** CamelCase, used as the condition's reason and the Event's reason. */
  reason: "BucketExists" | "NoSuchBucket" | "AccessDenied" | "Unreachable" | "UnexpectedResponse";
  message: string;
}

export interface ProbeOptions {
  timeoutMs: number;
  /** Aborted when the reconcile is cancelled (shutdown). */
  signal?: AbortSignal;
}

export async function headBucket(endpoint: string, bucket: string, opts: ProbeOptions): Promise<ProbeResult> {
  const url = `${endpoint.replace(/\/+$/, "")}/${encodeURIComponent(bucket)}`;
  const signals = [AbortSignal.timeout(opts.timeoutMs), ...(opts.signal ? [opts.signal] : [])];
  let status: number;
  try {
    const res = await fetch(url, { method: "HEAD", signal: AbortSignal.any(signals) });
    status = res.status;
  } catch (err) {
    // A shutdown is not a finding about the bucket: let the reconcile end.
    if (opts.signal?.aborted) throw err;
    return { status: "Unknown", reason: "Unreachable", message: `HEAD ${url}: ${describe(err)}` };
  }
  switch (status) {
    case 200:
      return { status: "True", reason: "BucketExists", message: `bucket ${bucket} exists at ${endpoint}` };
    case 404:
      return {
        status: "False",
        reason: "NoSuchBucket",
        message: `bucket ${bucket} does not exist at ${endpoint}`,
      };
    case 403:
      return {
        status: "False",
        reason: "AccessDenied",
        message: `access to bucket ${bucket} at ${endpoint} is denied`,
      };
    default:
      return {
        status: "Unknown",
        reason: "UnexpectedResponse",
        message: `HEAD ${url} answered ${status}`,
      };
  }
}

/** fetch() hides the network error (ECONNREFUSED, ...) in `cause`; a timeout is a DOMException. */
function describe(err: unknown): string {
  if (err instanceof Error) {
    if (err.name === "TimeoutError") return "timed out";
    const cause = (err as Error & { cause?: unknown }).cause;
    if (cause instanceof Error) return (cause as Error & { code?: string }).code ?? cause.message;
    return err.message;
  }
  return String(err);
}
