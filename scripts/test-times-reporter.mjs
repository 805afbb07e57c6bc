// A node:test reporter for scripts/run-tests.mjs: one JSON line per top-level test or suite that
// ended (its file and duration), so the runner can name the files the suite spends its time in.
export default async function* fileTimes(source) {
  for await (const event of source) {
    if ((event.type === "test:pass" || event.type === "test:fail") && event.data.nesting === 0) {
      yield `${JSON.stringify({ file: event.data.file, ms: event.data.details?.duration_ms ?? 0 })}\n`;
    }
  }
}
