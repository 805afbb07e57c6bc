// The CEL value of a string of a schema format, as kube declares them to rules (SchemaDeclType):
// date-time and date are timestamps, duration a duration (strfmt's: Go's time.ParseDuration, or scala-style `5 minutes`), byte
// bytes (base64). The type checker (checker-types.ts) gives such a field those types, so a rule
// compares `self.at < timestamp(...)` and calls `self.at.getFullYear()`, never string methods.
import { create, fromJson } from "@bufbuild/protobuf";
import { DurationSchema, TimestampSchema, timestampFromMs } from "@bufbuild/protobuf/wkt";
import { parseStrfmtDuration } from "../schema/formats.js";

/** `text` as the CEL value of a node of format `format`; the text itself when it does not parse. */
export function formattedValue(text: string, format: string | undefined): unknown {
  switch (format) {
    case "date-time":
    case "date": {
      const iso = format === "date" ? `${text}T00:00:00Z` : text;
      try {
        return fromJson(TimestampSchema, iso);
      } catch {
        const ms = Date.parse(iso);
        return Number.isNaN(ms) ? text : timestampFromMs(ms);
      }
    }
    case "duration": {
      const ms = parseStrfmtDuration(text);
      if (ms === undefined) return text;
      const seconds = Math.trunc(ms / 1000);
      return create(DurationSchema, {
        seconds: BigInt(seconds),
        nanos: Math.round((ms - seconds * 1000) * 1e6),
      });
    }
    case "byte":
      return new Uint8Array(Buffer.from(text, "base64"));
    default:
      return text;
  }
}
