// Gateway API's CEL validation rules (v1.2.1's standard channel: Gateway, GatewayClass,
// HTTPRoute and GRPCRoute), on schemas cut down to the fields those rules and their cases touch,
// with the sizes, enums and defaults that decide what kube's cost estimator lets through and what
// the rules see. The rules and messages are Gateway API's, word for word: these are the rules
// users install most, and each leans on a corner of kube's CEL (escaped property names,
// exists_one, raw strings, `(?i)` regexes, duration(), sums over fixed indexes). The CRDs live in
// their own group so that they never meet the real ones on a shared cluster.
type Schema = Record<string, unknown>;
type Rule = { rule: string; message: string };

export const GATEWAY_GROUP = "gateway.cel-corpus.example.com";

const DNS_SUBDOMAIN = "^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$";
const GROUP = "^$|^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$";
const KIND = "^[a-zA-Z]([-a-zA-Z0-9]*[a-zA-Z0-9])?$";
const LABEL = "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$";

const str = (maxLength: number, more: Schema = {}): Schema => ({ type: "string", maxLength, ...more });
const int32 = (more: Schema = {}): Schema => ({ type: "integer", format: "int32", ...more });
const port = () => int32({ minimum: 1, maximum: 65535 });
const obj = (properties: Schema, more: Schema = {}, rules: Rule[] = []): Schema => ({
  type: "object",
  properties,
  ...more,
  ...(rules.length > 0 ? { "x-kubernetes-validations": rules } : {}),
});
const list = (items: Schema, maxItems: number, more: Schema = {}, rules: Rule[] = []): Schema => ({
  type: "array",
  items,
  maxItems,
  ...more,
  ...(rules.length > 0 ? { "x-kubernetes-validations": rules } : {}),
});
const enumOf = (values: (string | number)[], more: Schema = {}): Schema => ({
  type: typeof values[0] === "number" ? "integer" : "string",
  enum: values,
  ...more,
});

// --- Gateway ---------------------------------------------------------------------------------

const KEY_RULE = (what: string): Rule[] => [
  {
    message: `${what} keys must be in the form of an optional DNS subdomain prefix followed by a required name segment of up to 63 characters.`,
    rule: 'self.all(key, key.matches(r"""^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9]$"""))',
  },
  {
    message: `If specified, the ${what.toLowerCase()} key's prefix must be a DNS subdomain not longer than 253 characters in total.`,
    rule: 'self.all(key, key.split("/")[0].size() < 253)',
  },
];

const address = obj(
  {
    type: str(253, {
      minLength: 1,
      default: "IPAddress",
      pattern:
        "^Hostname|IPAddress|NamedAddress|[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\\/[A-Za-z0-9\\/\\-._~%!$&'()*+,;=:]+$",
    }),
    value: str(253, { minLength: 1 }),
  },
  {
    required: ["value"],
    oneOf: [
      {
        properties: {
          type: { enum: ["IPAddress"] },
          value: { anyOf: [{ format: "ipv4" }, { format: "ipv6" }] },
        },
      },
      { properties: { type: { not: { enum: ["IPAddress"] } } } },
    ],
  },
  [
    {
      message:
        "Hostname value must only contain valid characters (matching ^(\\*\\.)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$)",
      rule: 'self.type == \'Hostname\' ? self.value.matches(r"""^(\\*\\.)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"""): true',
    },
  ],
);

const secretRef = obj(
  {
    group: str(253, { default: "", pattern: GROUP }),
    kind: str(63, { minLength: 1, default: "Secret", pattern: KIND }),
    name: str(253, { minLength: 1 }),
    namespace: str(63, { minLength: 1, pattern: LABEL }),
  },
  { required: ["name"] },
);

const listener = obj(
  {
    name: str(253, { minLength: 1, pattern: DNS_SUBDOMAIN }),
    hostname: str(253, {
      minLength: 1,
      pattern: "^(\\*\\.)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$",
    }),
    port: port(),
    protocol: str(255, {
      minLength: 1,
      pattern:
        "^[a-zA-Z0-9]([-a-zA-Z0-9]*[a-zA-Z0-9])?$|[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\\/[A-Za-z0-9]+$",
    }),
    tls: obj(
      {
        certificateRefs: list(secretRef, 64),
        mode: enumOf(["Terminate", "Passthrough"], { default: "Terminate" }),
        options: { type: "object", maxProperties: 16, additionalProperties: str(4096, { minLength: 0 }) },
      },
      {},
      [
        {
          message: "certificateRefs or options must be specified when mode is Terminate",
          rule: "self.mode == 'Terminate' ? size(self.certificateRefs) > 0 || size(self.options) > 0 : true",
        },
      ],
    ),
  },
  { required: ["name", "port", "protocol"] },
);

const gatewaySpec = obj(
  {
    gatewayClassName: str(253, { minLength: 1 }),
    addresses: list(address, 16, {}, [
      {
        message: "IPAddress values must be unique",
        rule: "self.all(a1, a1.type == 'IPAddress' ? self.exists_one(a2, a2.type == a1.type && a2.value == a1.value) : true )",
      },
      {
        message: "Hostname values must be unique",
        rule: "self.all(a1, a1.type == 'Hostname' ? self.exists_one(a2, a2.type == a1.type && a2.value == a1.value) : true )",
      },
    ]),
    infrastructure: obj({
      annotations: {
        type: "object",
        maxProperties: 8,
        additionalProperties: str(4096, { minLength: 0 }),
        "x-kubernetes-validations": KEY_RULE("Annotation"),
      },
      labels: {
        type: "object",
        maxProperties: 8,
        additionalProperties: str(63, {
          minLength: 0,
          pattern: "^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$",
        }),
        "x-kubernetes-validations": KEY_RULE("Label"),
      },
    }),
    listeners: list(
      listener,
      64,
      { minItems: 1, "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"] },
      [
        {
          message: "tls must not be specified for protocols ['HTTP', 'TCP', 'UDP']",
          rule: "self.all(l, l.protocol in ['HTTP', 'TCP', 'UDP'] ? !has(l.tls) : true)",
        },
        {
          message: "tls mode must be Terminate for protocol HTTPS",
          rule: "self.all(l, (l.protocol == 'HTTPS' && has(l.tls)) ? (l.tls.mode == '' || l.tls.mode == 'Terminate') : true)",
        },
        {
          message: "hostname must not be specified for protocols ['TCP', 'UDP']",
          rule: "self.all(l, l.protocol in ['TCP', 'UDP']  ? (!has(l.hostname) || l.hostname == '') : true)",
        },
        {
          message: "Listener name must be unique within the Gateway",
          rule: "self.all(l1, self.exists_one(l2, l1.name == l2.name))",
        },
        {
          message: "Combination of port, protocol and hostname must be unique for each listener",
          rule: "self.all(l1, self.exists_one(l2, l1.port == l2.port && l1.protocol == l2.protocol && (has(l1.hostname) && has(l2.hostname) ? l1.hostname == l2.hostname : !has(l1.hostname) && !has(l2.hostname))))",
        },
      ],
    ),
  },
  { required: ["gatewayClassName", "listeners"] },
);

// --- GatewayClass ----------------------------------------------------------------------------

const gatewayClassSpec = obj(
  {
    controllerName: {
      ...str(253, {
        minLength: 1,
        pattern:
          "^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\\/[A-Za-z0-9\\/\\-._~%!$&'()*+,;=:]+$",
      }),
      "x-kubernetes-validations": [{ message: "Value is immutable", rule: "self == oldSelf" }],
    },
    description: str(64),
  },
  { required: ["controllerName"] },
);

// --- Routes ----------------------------------------------------------------------------------

/** The two rules on parentRefs, which name `namespace` by its escaped name `__namespace__`. */
const PARENT_RULES: Rule[] = [
  {
    message: "sectionName must be specified when parentRefs includes 2 or more references to the same parent",
    rule: "self.all(p1, self.all(p2, p1.group == p2.group && p1.kind == p2.kind && p1.name == p2.name && (((!has(p1.__namespace__) || p1.__namespace__ == '') && (!has(p2.__namespace__) || p2.__namespace__ == '')) || (has(p1.__namespace__) && has(p2.__namespace__) && p1.__namespace__ == p2.__namespace__ )) ? ((!has(p1.sectionName) || p1.sectionName == '') == (!has(p2.sectionName) || p2.sectionName == '')) : true))",
  },
  {
    message: "sectionName must be unique when parentRefs includes 2 or more references to the same parent",
    rule: "self.all(p1, self.exists_one(p2, p1.group == p2.group && p1.kind == p2.kind && p1.name == p2.name && (((!has(p1.__namespace__) || p1.__namespace__ == '') && (!has(p2.__namespace__) || p2.__namespace__ == '')) || (has(p1.__namespace__) && has(p2.__namespace__) && p1.__namespace__ == p2.__namespace__ )) && (((!has(p1.sectionName) || p1.sectionName == '') && (!has(p2.sectionName) || p2.sectionName == '')) || (has(p1.sectionName) && has(p2.sectionName) && p1.sectionName == p2.sectionName))))",
  },
];

const parentRefs = list(
  obj(
    {
      group: str(253, { default: "gateway.networking.k8s.io", pattern: GROUP }),
      kind: str(63, { minLength: 1, default: "Gateway", pattern: KIND }),
      name: str(253, { minLength: 1 }),
      namespace: str(63, { minLength: 1, pattern: LABEL }),
      port: port(),
      sectionName: str(253, { minLength: 1, pattern: DNS_SUBDOMAIN }),
    },
    { required: ["name"] },
  ),
  32,
  {},
  PARENT_RULES,
);

const backendRef = (more: Schema = {}) =>
  obj(
    {
      group: str(253, { default: "", pattern: GROUP }),
      kind: str(63, { minLength: 1, default: "Service", pattern: KIND }),
      name: str(253, { minLength: 1 }),
      namespace: str(63, { minLength: 1, pattern: LABEL }),
      port: port(),
      ...more,
    },
    { required: ["name"] },
    [
      {
        message: "Must have port for Service reference",
        rule: "(size(self.group) == 0 && self.kind == 'Service') ? has(self.port) : true",
      },
    ],
  );

const header = obj(
  {
    name: str(256, { minLength: 1, pattern: "^[A-Za-z0-9!#$%&'*+\\-.^_\\x60|~]+$" }),
    value: str(4096, { minLength: 1 }),
  },
  { required: ["name", "value"] },
);
const headerModifier = obj({
  add: list(header, 16, { "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"] }),
  remove: list({ type: "string" }, 16, { "x-kubernetes-list-type": "set" }),
  set: list(header, 16, { "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"] }),
});

const pathModifier = obj(
  {
    replaceFullPath: str(1024),
    replacePrefixMatch: str(1024),
    type: enumOf(["ReplaceFullPath", "ReplacePrefixMatch"]),
  },
  { required: ["type"] },
  [
    {
      message: "replaceFullPath must be specified when type is set to 'ReplaceFullPath'",
      rule: "self.type == 'ReplaceFullPath' ? has(self.replaceFullPath) : true",
    },
    {
      message: "type must be 'ReplaceFullPath' when replaceFullPath is set",
      rule: "has(self.replaceFullPath) ? self.type == 'ReplaceFullPath' : true",
    },
    {
      message: "replacePrefixMatch must be specified when type is set to 'ReplacePrefixMatch'",
      rule: "self.type == 'ReplacePrefixMatch' ? has(self.replacePrefixMatch) : true",
    },
    {
      message: "type must be 'ReplacePrefixMatch' when replacePrefixMatch is set",
      rule: "has(self.replacePrefixMatch) ? self.type == 'ReplacePrefixMatch' : true",
    },
  ],
);

/** A filter's type names the one field it must carry, and no other (12 rules, 2 per type). */
function filterRules(types: Record<string, string>): Rule[] {
  return Object.entries(types).flatMap(([type, field]) => [
    {
      message: `filter.${field} must be nil if the filter.type is not ${type}`,
      rule: `!(has(self.${field}) && self.type != '${type}')`,
    },
    {
      message: `filter.${field} must be specified for ${type} filter.type`,
      rule: `!(!has(self.${field}) && self.type == '${type}')`,
    },
  ]);
}
const notRepeated = (types: string[]): Rule[] =>
  types.map((t) => ({
    message: `${t} filter cannot be repeated`,
    rule: `self.filter(f, f.type == '${t}').size() <= 1`,
  }));

const HTTP_FILTER_FIELDS = {
  RequestHeaderModifier: "requestHeaderModifier",
  ResponseHeaderModifier: "responseHeaderModifier",
  RequestMirror: "requestMirror",
  RequestRedirect: "requestRedirect",
  URLRewrite: "urlRewrite",
  ExtensionRef: "extensionRef",
};
const extensionRef = obj(
  {
    group: str(253, { pattern: GROUP }),
    kind: str(63, { minLength: 1, pattern: KIND }),
    name: str(253, { minLength: 1 }),
  },
  { required: ["group", "kind", "name"] },
);
const httpFilters = list(
  obj(
    {
      extensionRef,
      requestHeaderModifier: headerModifier,
      requestMirror: obj({ backendRef: backendRef() }, { required: ["backendRef"] }),
      requestRedirect: obj({
        hostname: str(253, { minLength: 1, pattern: DNS_SUBDOMAIN }),
        path: pathModifier,
        port: port(),
        scheme: enumOf(["http", "https"]),
        statusCode: enumOf([301, 302], { default: 302 }),
      }),
      responseHeaderModifier: headerModifier,
      type: enumOf(Object.keys(HTTP_FILTER_FIELDS)),
      urlRewrite: obj({ hostname: str(253, { minLength: 1, pattern: DNS_SUBDOMAIN }), path: pathModifier }),
    },
    { required: ["type"] },
    filterRules(HTTP_FILTER_FIELDS),
  ),
  16,
  {},
  [
    {
      message:
        "May specify either httpRouteFilterRequestRedirect or httpRouteFilterRequestRewrite, but not both",
      rule: "!(self.exists(f, f.type == 'RequestRedirect') && self.exists(f, f.type == 'URLRewrite'))",
    },
    ...notRepeated(["RequestHeaderModifier", "ResponseHeaderModifier", "RequestRedirect", "URLRewrite"]),
  ],
);

const EXACT_OR_PREFIX = "(self.type in ['Exact','PathPrefix'])";
const pathMatch = obj(
  {
    type: enumOf(["Exact", "PathPrefix", "RegularExpression"], { default: "PathPrefix" }),
    value: str(1024, { default: "/" }),
  },
  {},
  [
    {
      message: "value must be an absolute path and start with '/' when type one of ['Exact', 'PathPrefix']",
      rule: `${EXACT_OR_PREFIX} ? self.value.startsWith('/') : true`,
    },
    ...["//", "/./", "/../", "%2f", "%2F", "#"].map((s) => ({
      message: `must not contain '${s}' when type one of ['Exact', 'PathPrefix']`,
      rule: `${EXACT_OR_PREFIX} ? !self.value.contains('${s}') : true`,
    })),
    ...["/..", "/."].map((s) => ({
      message: `must not end with '${s}' when type one of ['Exact', 'PathPrefix']`,
      rule: `${EXACT_OR_PREFIX} ? !self.value.endsWith('${s}') : true`,
    })),
    {
      message: "type must be one of ['Exact', 'PathPrefix', 'RegularExpression']",
      rule: "self.type in ['Exact','PathPrefix'] || self.type == 'RegularExpression'",
    },
    {
      message:
        "must only contain valid characters (matching ^(?:[-A-Za-z0-9/._~!$&'()*+,;=:@]|[%][0-9a-fA-F]{2})+$) for types ['Exact', 'PathPrefix']",
      rule: `${EXACT_OR_PREFIX} ? self.value.matches(r"""^(?:[-A-Za-z0-9/._~!$&'()*+,;=:@]|[%][0-9a-fA-F]{2})+$""") : true`,
    },
  ],
);

/** The rule a rule's filters (or its backends' filters) of `filter` with a prefix rewrite carry. */
function prefixRewriteRule(filter: "requestRedirect" | "urlRewrite", inBackends: boolean): Rule {
  const name = filter === "requestRedirect" ? "RequestRedirect" : "URLRewrite";
  const has = `f.${filter}.path.type == 'ReplacePrefixMatch' && has(f.${filter}.path.replacePrefixMatch)`;
  const found = `has(f.${filter}) && has(f.${filter}.path) && ${has}`;
  const then =
    "((size(self.matches) != 1 || !has(self.matches[0].path) || self.matches[0].path.type != 'PathPrefix') ? false : true) : true";
  if (!inBackends) {
    return {
      message: `When using ${name} filter with path.replacePrefixMatch, exactly one PathPrefix match must be specified`,
      rule: `(has(self.filters) && self.filters.exists_one(f, ${found})) ? ${then}`,
    };
  }
  return {
    message: `Within backendRefs, ${filter === "requestRedirect" ? "when" : "When"} using ${name} filter with path.replacePrefixMatch, exactly one PathPrefix match must be specified`,
    rule: `(has(self.backendRefs) && self.backendRefs.exists_one(b, (has(b.filters) && b.filters.exists_one(f, ${found})) )) ? ${then}`,
  };
}

/** The sum over the first 16 rules' matches (CEL has no sum over nested lists in kube 1.26). */
function matchesTotal(guarded: boolean): string {
  const size = (i: number) =>
    guarded ? `(has(self[${i}].matches) ? self[${i}].matches.size() : 0)` : `self[${i}].matches.size()`;
  const terms = Array.from({ length: 16 }, (_, i) => `(self.size() > ${i} ? ${size(i)} : 0)`);
  return `${terms.join(" + ")} <= 128`;
}
const MATCHES_MESSAGE =
  "While 16 rules and 64 matches per rule are allowed, the total number of matches across all rules in a route must be less than 128";

const httpRouteSpec = obj({
  parentRefs,
  rules: list(
    obj(
      {
        backendRefs: list(
          backendRef({ filters: httpFilters, weight: int32({ default: 1, minimum: 0, maximum: 1000000 }) }),
          16,
        ),
        filters: httpFilters,
        matches: list(obj({ path: pathMatch }), 64, {
          default: [{ path: { type: "PathPrefix", value: "/" } }],
        }),
        timeouts: obj(
          {
            backendRequest: str(1024, { pattern: "^([0-9]{1,5}(h|m|s|ms)){1,4}$" }),
            request: str(1024, { pattern: "^([0-9]{1,5}(h|m|s|ms)){1,4}$" }),
          },
          {},
          [
            {
              message: "backendRequest timeout cannot be longer than request timeout",
              rule: "!(has(self.request) && has(self.backendRequest) && duration(self.request) != duration('0s') && duration(self.backendRequest) > duration(self.request))",
            },
          ],
        ),
      },
      {},
      [
        {
          message: "RequestRedirect filter must not be used together with backendRefs",
          rule: "(has(self.backendRefs) && size(self.backendRefs) > 0) ? (!has(self.filters) || self.filters.all(f, !has(f.requestRedirect))): true",
        },
        prefixRewriteRule("requestRedirect", false),
        prefixRewriteRule("urlRewrite", false),
        prefixRewriteRule("requestRedirect", true),
        prefixRewriteRule("urlRewrite", true),
      ],
    ),
    16,
    { default: [{ matches: [{ path: { type: "PathPrefix", value: "/" } }] }] },
    [{ message: MATCHES_MESSAGE, rule: matchesTotal(false) }],
  ),
});

const GRPC_FILTER_FIELDS = {
  ResponseHeaderModifier: "responseHeaderModifier",
  RequestHeaderModifier: "requestHeaderModifier",
  RequestMirror: "requestMirror",
  ExtensionRef: "extensionRef",
};
const grpcFilters = list(
  obj(
    {
      extensionRef,
      requestHeaderModifier: headerModifier,
      requestMirror: obj({ backendRef: backendRef() }, { required: ["backendRef"] }),
      responseHeaderModifier: headerModifier,
      type: enumOf(Object.keys(GRPC_FILTER_FIELDS)),
    },
    { required: ["type"] },
    filterRules(GRPC_FILTER_FIELDS),
  ),
  16,
  {},
  notRepeated(["RequestHeaderModifier", "ResponseHeaderModifier"]),
);

const grpcRouteSpec = obj({
  parentRefs,
  rules: list(
    obj({
      backendRefs: list(backendRef({ filters: grpcFilters }), 16),
      filters: grpcFilters,
      matches: list(
        obj({
          method: obj(
            {
              method: str(1024),
              service: str(1024),
              type: enumOf(["Exact", "RegularExpression"], { default: "Exact" }),
            },
            {},
            [
              {
                message: "One or both of 'service' or 'method' must be specified",
                rule: "has(self.type) ? has(self.service) || has(self.method) : true",
              },
              {
                message:
                  "service must only contain valid characters (matching ^(?i)\\.?[a-z_][a-z_0-9]*(\\.[a-z_][a-z_0-9]*)*$)",
                rule: '(!has(self.type) || self.type == \'Exact\') && has(self.service) ? self.service.matches(r"""^(?i)\\.?[a-z_][a-z_0-9]*(\\.[a-z_][a-z_0-9]*)*$"""): true',
              },
              {
                message: "method must only contain valid characters (matching ^[A-Za-z_][A-Za-z_0-9]*$)",
                rule: '(!has(self.type) || self.type == \'Exact\') && has(self.method) ? self.method.matches(r"""^[A-Za-z_][A-Za-z_0-9]*$"""): true',
              },
            ],
          ),
        }),
        8,
      ),
    }),
    16,
    {},
    [{ message: MATCHES_MESSAGE, rule: matchesTotal(true) }],
  ),
});

function crd(kind: string, plural: string, scope: "Namespaced" | "Cluster", spec: Schema): Schema {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${plural}.${GATEWAY_GROUP}` },
    spec: {
      group: GATEWAY_GROUP,
      scope,
      names: { plural, singular: kind.toLowerCase(), kind, listKind: `${kind}List` },
      versions: [
        {
          name: "v1",
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: "object", properties: { spec } } },
        },
      ],
    },
  };
}

/** The four CRDs, by kind. */
export const gatewayApiCRDs = {
  Gateway: crd("Gateway", "gateways", "Namespaced", gatewaySpec),
  GatewayClass: crd("GatewayClass", "gatewayclasses", "Cluster", gatewayClassSpec),
  HTTPRoute: crd("HTTPRoute", "httproutes", "Namespaced", httpRouteSpec),
  GRPCRoute: crd("GRPCRoute", "grpcroutes", "Namespaced", grpcRouteSpec),
};
