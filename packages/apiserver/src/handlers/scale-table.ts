// The Table of a Scale (`kubectl get --subresource=scale`): kube's scale columns, Name, Desired,
// Available and Age, as its built-in scale endpoints print them, or as the custom resource
// handler's scale convertor does (other formats and descriptions).
import { metaApiVersionOf } from "../http-io.js";
import { age } from "../schema/index.js";
import type { Obj } from "../storage/index.js";
import type { ResourceRequest } from "./context.js";
import { includeObjectOf } from "./table.js";

const NAME_DESCRIPTION =
  "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names";
const CREATED_DESCRIPTION =
  "CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";

const column = (name: string, type: string, format: string, description: string) => ({
  name,
  type,
  format,
  description,
  priority: 0,
});

/** Built-in kinds' scale columns: autoscaling/v1 Scale's field docs. */
const BUILTIN_COLUMNS = [
  column("Name", "string", "", NAME_DESCRIPTION),
  column("Desired", "integer", "", "replicas is the desired number of instances for the scaled object."),
  column(
    "Available",
    "integer",
    "",
    "replicas is the actual number of observed instances of the scaled object.",
  ),
  column("Age", "string", "", CREATED_DESCRIPTION),
];

/** A custom resource's scale columns (apiextensions' getScaleColumnsForVersion). */
const CUSTOM_COLUMNS = [
  column("Name", "string", "name", NAME_DESCRIPTION),
  column("Desired", "integer", "", "Number of desired replicas"),
  column("Available", "integer", "", "Number of actual replicas"),
  column("Age", "date", "", CREATED_DESCRIPTION),
];

/** The JSON of the Table of one Scale, in the meta version the request negotiated. */
export function scaleTableJson(r: ResourceRequest, scale: Obj): string {
  const apiVersion = metaApiVersionOf(r.res);
  const meta = (scale.metadata ?? {}) as Obj;
  const include = includeObjectOf(r.query);
  const object =
    include === "Object"
      ? scale
      : include === "None"
        ? null
        : { kind: "PartialObjectMetadata", apiVersion, metadata: meta };
  const cells = [
    meta.name ?? "",
    (scale.spec as Obj | undefined)?.replicas ?? 0,
    (scale.status as Obj | undefined)?.replicas ?? 0,
    age(meta.creationTimestamp, r.server.now().getTime()),
  ];
  return JSON.stringify({
    kind: "Table",
    apiVersion,
    metadata: { resourceVersion: meta.resourceVersion },
    columnDefinitions: r.def.crdName ? CUSTOM_COLUMNS : BUILTIN_COLUMNS,
    rows: [{ cells, object }],
  });
}
