// kube's protobuf messages, read once from the descriptors generated from its .proto files, and
// what the Go types add to each (which zero values are kept, inlined structs, JSON names).
import { createFileRegistry, type DescMessage, type FileRegistry, fromBinary } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { PACKAGES } from "./groups.js";
import { DESCRIPTORS, GO_LISTS, GO_SHAPES } from "./kube-protos.generated.js";

const META = "k8s.io.apimachinery.pkg.apis.meta.v1";
/**
 * Built-in groups whose messages live outside k8s.io/api, by their proto package (without the
 * version). Not in groups.ts PACKAGES: those are the groups the *client* sends and asks for in
 * protobuf, which follows client-go's scheme (controller-runtime's protobuf scheme), and that
 * scheme has no apiextensions.k8s.io. kube-apiserver does serve and read CRDs in protobuf
 * (client-go's apiextensions clientset, Kubernetes' e2e tests use it), so the server needs them.
 */
const SERVER_PACKAGES: Readonly<Record<string, string>> = {
  "apiextensions.k8s.io": "k8s.io.apiextensions_apiserver.pkg.apis.apiextensions",
};
/** APIServices are served in protobuf by kube's aggregator; their messages are not in the descriptors. */
const META_ONLY_GROUPS = new Set(["apiregistration.k8s.io"]);

let registry: FileRegistry | undefined;

function files(): FileRegistry {
  registry ??= createFileRegistry(fromBinary(FileDescriptorSetSchema, Buffer.from(DESCRIPTORS, "base64")));
  return registry;
}

/** A message by its full name, such as `k8s.io.api.core.v1.Pod`. */
export function message(typeName: string): DescMessage | undefined {
  return files().getMessage(typeName);
}

/**
 * The message of `kind` in `apiVersion`, undefined when kube has none (custom resources, kinds
 * of groups the descriptors leave out). Options such as DeleteOptions are registered in every
 * built-in group version and live in meta/v1.
 */
export function messageOf(apiVersion: string, kind: string): DescMessage | undefined {
  const slash = apiVersion.indexOf("/");
  const group = slash < 0 ? "" : apiVersion.slice(0, slash);
  const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
  // Discovery's APIVersions and the core group's APIResourceList are written without an apiVersion.
  if (apiVersion === "" && /^[A-Za-z0-9]+$/.test(kind)) return message(`${META}.${kind}`);
  if (!/^[a-z0-9]+$/.test(version) || !/^[A-Za-z0-9]+$/.test(kind)) return undefined;
  // meta.k8s.io/v1beta1 has its own PartialObjectMetadataList; its other types are v1's.
  if (group === "meta.k8s.io") {
    return message(`k8s.io.apimachinery.pkg.apis.meta.${version}.${kind}`) ?? message(`${META}.${kind}`);
  }
  if (Object.hasOwn(SERVER_PACKAGES, group)) {
    return message(`${SERVER_PACKAGES[group]}.${version}.${kind}`) ?? message(`${META}.${kind}`);
  }
  const pkg = Object.hasOwn(PACKAGES, group) ? PACKAGES[group] : undefined;
  // kube's other built-in groups (APIServices) have no messages here, but their options
  // (DeleteOptions, ...) are meta/v1's, as before the group table.
  if (pkg === undefined) return META_ONLY_GROUPS.has(group) ? message(`${META}.${kind}`) : undefined;
  return message(`k8s.io.api.${pkg}.${version}.${kind}`) ?? message(`${META}.${kind}`);
}

/** What the Go field behind a proto field adds; see scripts/gen-protobuf.ts. */
export interface GoField {
  /** The zero value is written (a pointer, or a field without omitempty). */
  keepZero: boolean;
  /** An embedded struct: its JSON fields are the parent's. */
  inline: boolean;
  /** `omitzero`: left out of JSON when zero (an unset Time is not written as null). */
  omitZero: boolean;
  /** The JSON name where it differs from the proto name. */
  json?: string;
}

const shapes = new Map<string, Map<number, GoField>>();

export function goFields(typeName: string): Map<number, GoField> {
  let shape = shapes.get(typeName);
  if (shape) return shape;
  shape = new Map();
  for (const entry of (GO_SHAPES[typeName] ?? "").split(" ")) {
    const m = /^(\d+)(k?)(i?)(z?)(?:=(.+))?$/.exec(entry);
    if (!m) continue;
    shape.set(Number(m[1]), {
      keepZero: m[2] === "k",
      inline: m[3] === "i",
      omitZero: m[4] === "z",
      json: m[5],
    });
  }
  shapes.set(typeName, shape);
  return shape;
}

const lists = new Set(GO_LISTS);

/** Messages of Go slice types (`type ExtraValue []string`), written in JSON as their items. */
export function isGoList(typeName: string): boolean {
  return lists.has(typeName);
}
