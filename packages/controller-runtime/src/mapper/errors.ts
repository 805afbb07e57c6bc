// Errors of the RESTMapper: the API server does not serve the kind or resource asked for.

/** No served resource has this kind: its group, version or kind is wrong, or its CRD is missing. */
export class NoKindMatchError extends Error {
  override readonly name = "NoKindMatchError";
  readonly code = "ERR_NO_KIND_MATCH";
  readonly group: string;
  readonly kind: string;
  /** The versions asked for; empty when any version would do. */
  readonly searchedVersions: readonly string[];

  constructor(group: string, kind: string, searchedVersions: readonly string[] = []) {
    const where = group === "" ? "the core group" : `group "${group}"`;
    const versions = searchedVersions.length > 0 ? ` (version ${searchedVersions.join(", ")})` : "";
    const hint =
      group === ""
        ? "check the kind's spelling and apiVersion"
        : "if it is a custom resource, install its CustomResourceDefinition (and wait until it is Established); else check the kind's spelling and apiVersion";
    super(`no matches for kind "${kind}" in ${where}${versions}: the API server does not serve it; ${hint}`);
    this.group = group;
    this.kind = kind;
    this.searchedVersions = searchedVersions;
  }
}

/** No served resource has this name (plural, singular or lower-case kind). */
export class NoResourceMatchError extends Error {
  override readonly name = "NoResourceMatchError";
  readonly code = "ERR_NO_RESOURCE_MATCH";
  readonly group: string;
  readonly resource: string;
  readonly version: string | undefined;

  constructor(group: string, resource: string, version?: string) {
    const gv = group === "" ? (version ?? "") : version ? `${group}/${version}` : group;
    super(
      `no matches for resource "${resource}"${gv ? ` in ${gv}` : " in the core group"}: the API server does not serve it; ` +
        "use the plural resource name (deployments), and install the CustomResourceDefinition of a custom resource",
    );
    this.group = group;
    this.resource = resource;
    this.version = version;
  }
}

/** Whether the mapper found no match: apimachinery's `meta.IsNoMatchError`. */
export function isNoMatchError(err: unknown): err is NoKindMatchError | NoResourceMatchError {
  return err instanceof NoKindMatchError || err instanceof NoResourceMatchError;
}
