// openapi: the /openapi/v2 and /openapi/v3 endpoints (documents from the schema helper's cache).
export { acceptedTypes } from "./accept.js";
export { OpenAPIService } from "./service.js";
export { openAPIV2Protobuf } from "./v2-protobuf.js";
