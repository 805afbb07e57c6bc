// Names replaced by the naming rules in the README's "Project layout" (acronyms in one case,
// `new*` factories), kept for one release so code written against them still compiles. Each is the new one.
import type { RESTConfig } from "./config.js";
import { type RESTClient, type RESTClientOptions, newRESTClient } from "./rest-client.js";
import { newCredentialSource } from "./credentials.js";
import { newTokenBucket } from "./rate-limiter.js";
import { newTransport } from "./transport.js";

/** @deprecated Use {@link RESTConfig}; removed in the next release. */
export type RestConfig = RESTConfig;
/** @deprecated Use {@link RESTClient}; removed in the next release. */
export type RestClient = RESTClient;
/** @deprecated Use {@link RESTClientOptions}; removed in the next release. */
export type RestClientOptions = RESTClientOptions;
/** @deprecated Use {@link newRESTClient}; removed in the next release. */
export const createRestClient = newRESTClient;
/** @deprecated Use {@link newCredentialSource}; removed in the next release. */
export const createCredentialSource = newCredentialSource;
/** @deprecated Use {@link newTokenBucket}; removed in the next release. */
export const createTokenBucket = newTokenBucket;
/** @deprecated Use {@link newTransport}; removed in the next release. */
export const createTransport = newTransport;
