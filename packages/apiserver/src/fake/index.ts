/** @module controller-runtime-apiserver/fake */
// fake: a Client for unit tests of reconcilers (controller-runtime's client/fake and
// client/interceptor), answered by an embedded API server of its own in this process: no HTTP, no
// TLS, but the server's validation, defaulting, server-side apply, selectors, resourceVersions,
// conflicts, status subresources and CRDs.
export type { FakeClient, FakeClientOptions, FakeServerOptions } from "./builder.js";
export { FakeClientBuilder, fakeClientBuilder, newFakeClient } from "./builder.js";
export type { InterceptorFuncs } from "./interceptor.js";
export { newInterceptorClient } from "./interceptor.js";
