// The form of the generated built-in schemas (builtin-schemas.generated.ts), in a file of its own
// so that the generated module and its reader (builtin-schemas.ts) do not import each other.

/** A definition in the generated module: properties by type code, required names, GVK. */
export interface CompactDefinition {
  /** `[group, version, kind]` for top-level kinds. */
  gvk?: [string, string, string];
  required?: string[];
  /**
   * Type codes: `string`, `integer` (int64), `int32`, `number`, `boolean`, `date-time`, `int-or-string`,
   * `quantity`, `object` (free-form), `fields-v1`, `any`, `[]<code>` (array), `{}<code>` (map) and
   * `@<module>.<version>.<Type>` (a definition).
   */
  properties: Record<string, string>;
}
