// The packages each module of lazy.ts imports, imported before it. Where the server runs from
// its sources this changes nothing. In the bundle its own modules are one script run with a code
// cache (code-cache.ts), which can `require` a package only once it is imported (Node 20.18
// cannot require an ES module): the bundle's build (scripts/bundle-apiserver.mjs) checks these
// lists against the modules' imports.

const PACKAGES = {
  "@bufbuild/cel": () => import("@bufbuild/cel"),
  "@bufbuild/cel/ext": () => import("@bufbuild/cel/ext"),
  "@bufbuild/protobuf": () => import("@bufbuild/protobuf"),
  "@bufbuild/protobuf/wkt": () => import("@bufbuild/protobuf/wkt"),
  "controller-runtime/protobuf": () => import("controller-runtime/protobuf"),
};
type Package = keyof typeof PACKAGES;

const CEL: Package[] = ["@bufbuild/cel", "@bufbuild/cel/ext", "@bufbuild/protobuf", "@bufbuild/protobuf/wkt"];

/** Each module of lazy.ts (its path from there) and the packages it imports, itself or through its own imports. */
export const LAZY_PACKAGES: Record<string, Package[]> = {
  "./protobuf/codec.js": ["@bufbuild/protobuf", "@bufbuild/protobuf/wkt", "controller-runtime/protobuf"],
  "./cel/crd-rules.js": CEL,
  "./cel/match-conditions.js": CEL,
  "./cel/admission-policy.js": CEL,
  "./cel/mutation.js": CEL,
};

/** Imports the packages `module` imports. */
export function packagesOf(module: string): Promise<unknown> {
  return Promise.all((LAZY_PACKAGES[module] ?? []).map((p) => PACKAGES[p]()));
}
