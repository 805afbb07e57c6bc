// schema: structural schemas of the embedded API server: validation, pruning and defaulting of
// objects, strict field checks, built-in kinds' schemas, OpenAPI documents and Tables.
export type { FieldError, FieldErrorType } from "./field-error.js";
export { errorBody, goValue, invalidMessage, toStatusCause } from "./field-error.js";
export { findDuplicateFields } from "./duplicate-fields.js";
export { checkFormat } from "./formats.js";
export { goTypeError } from "./go-types.js";
export { type Pattern, PatternCache, patternError } from "./patterns.js";
export { applyDefaults } from "./defaults.js";
export type { JSONPath } from "./json-path.js";
export { JSONPathError, jsonPathText, parseJSONPath } from "./json-path.js";
export type { UnknownFieldOptions } from "./prune.js";
export { findUnknownFields, pruneObject } from "./prune.js";
export { dropEmptyOptionalMaps } from "./omit-empty.js";
export type { Schema } from "./schema-types.js";
export { asJSONSchemaProps, isObject, SchemaResolver, schemaOf } from "./schema-types.js";
export { jsonType, validateObject, validateValue } from "./validate.js";
export type { CompactDefinition } from "./builtin-schemas.js";
export {
  builtinDefinition,
  builtinDefinitionName,
  builtinDefinitions,
  builtinSchema,
  fullDefinitionName,
  schemaForDefinition,
} from "./builtin-schemas.js";
export { objectMetaSchema } from "./prune.js";
export type { CachedDocument, OpenAPICache } from "./openapi-cache.js";
export { createOpenAPICache } from "./openapi-cache.js";
export type { DefinitionSet } from "./openapi-definitions.js";
export { collectDefinitions, crdDefinitionName } from "./openapi-definitions.js";
export {
  documentHash,
  groupVersionPath,
  openAPIV2,
  openAPIV3GroupVersion,
  openAPIV3Paths,
} from "./openapi-documents.js";
export type { TableOptions } from "./table.js";
export { toTable } from "./table.js";
export { age, humanDuration } from "./table-format.js";
export type { PartialObjectMetadata, Table, TableColumnDefinition, TableRow } from "./table-types.js";
