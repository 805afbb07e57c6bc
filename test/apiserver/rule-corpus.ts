// A generated corpus of CRD validation rules for the cost estimate's differential test
// (crd-rule-verdicts.test.ts): atoms of every shape kube's estimator sizes differently (bounded
// and unbounded strings, lists and maps, a function's results, literals, int-or-string,
// timestamps, quantities, IPs, URLs, formats, optionals, semvers) combined into comparisons,
// concatenations, searches and comprehensions, nested and with two variables. Each rule sits on
// the `spec` below. Changing a rule or the schema changes the recorded verdicts' checksum.

/** The rules, in a fixed order. */
export function generatedRules(): string[] {
  const rules: string[] = [];
  const S = [
    "self.s",
    "self.b",
    "'lit'",
    "string(self.n)",
    "self.b.lowerAscii()",
    "self.s.substring(1)",
    "self.l[0]",
    "self.m['k']",
    "self.m.k",
    "(self.b + self.b)",
    "self.l.join(',')",
    "self.s.split(',')[0]",
    "self.b.replace('a', 'bb')",
    "self.b.trim()",
    "self.u[0]",
    "self.b.find('a')",
    "self.l.map(x, x + 'a')[0]",
    "(self.n > 0 ? self.b : 'x')",
    "(self.n > 0 ? self.s : 'x')",
    "self.?b.orValue('')",
    "dyn(self.b)",
    "self.e",
    "self.d",
    "self.o.x",
  ];
  const L = [
    "self.l",
    "self.u",
    "self.s.split(',')",
    "self.b.split(',', 3)",
    "['a', 'b']",
    "self.l.map(x, x + 'a')",
    "self.l.filter(x, x == 'a')",
    "self.u.filter(x, x == 'a')",
    "(self.l + self.l)",
    "self.m.map(k, k)",
    "self.ll[0]",
    "self.b.findAll('a')",
    "[self.b, self.s]",
  ];
  const I = [
    "self.n",
    "self.l.size()",
    "size(self.s)",
    "self.s.indexOf('a')",
    "self.ns.sum()",
    "self.ns[0]",
    "self.ns.max()",
  ];
  for (const a of S)
    for (const b of S)
      rules.push(
        `${a} == ${b}`,
        `${a}.contains(${b})`,
        `${a} + ${b} == 'x'`,
        `${a}.startsWith(${b})`,
        `${a} < ${b}`,
      );
  for (const a of S)
    rules.push(
      `${a}.matches('^a+$')`,
      `${a}.size() < 5`,
      `${a}.matches(self.b)`,
      `'x'.matches(${a})`,
      `${a}.lowerAscii() == 'a'`,
      `${a}.indexOf('a') > 0`,
    );
  for (const l of L)
    for (const s of S)
      rules.push(
        `${s} in ${l}`,
        `${l}.all(x, x == ${s})`,
        `${l}.exists(x, x.contains(${s}))`,
        `${l}.indexOf(${s}) >= 0`,
        `${l}.join(${s}).size() > 0`,
      );
  for (const l of L)
    for (const m of L)
      rules.push(`sets.contains(${l}, ${m})`, `${l} == ${m}`, `${l}.all(x, ${m}.exists(y, x == y))`);
  for (const l of L)
    rules.push(
      `${l}.isSorted()`,
      `${l}.min() == 'a'`,
      `${l}.map(x, x.size()).sum() > 0`,
      `${l}.size() > 0`,
      `${l}.all(x, x.matches('a'))`,
      `size(${l}.filter(x, x.startsWith('a'))) > 0`,
    );
  for (const i of I) for (const j of I) rules.push(`${i} < ${j}`, `${i} + ${j} == 3`);
  for (const s of S)
    rules.push(
      `'%s'.format([${s}]) == 'x'`,
      `quantity(${s}) == quantity('1')`,
      `isQuantity(${s})`,
      `url(${s}).getHost() == 'a'`,
      `isURL(${s})`,
      `${s}.split(',').size() > 0`,
    );

  const S2 = [
    "self.s",
    "self.b",
    "self.io",
    "string(self.io)",
    "self.d.getFullYear() > 0 ? 'a' : 'b'",
    "string(self.d)",
    "string(self.du)",
    "self.objs[0].name",
    "self.objs.map(o, o.name)[0]",
    "self.m.filter(k, k.size() > 1)[0]",
    "self.?o.?x.orValue('')",
    "self.b.upperAscii()",
    "self.ip",
    "string(ip(self.ip))",
    "ip(self.ip).family() == 4 ? 'a' : 'b'",
    "self.b.charAt(0)",
    "self.l.join()",
    "self.s.substring(1, 3)",
    "self.b.indexOf('a') > 0 ? self.s : self.b",
    "self.e + self.e",
    "self.b.replace('a', self.b)",
    "self.b.replace('', 'xx')",
    "self.b.replace(self.s, 'x')",
  ];
  const L2 = [
    "self.objs",
    "self.objs.map(o, o.name)",
    "self.m.map(k, self.m[k])",
    "self.ll",
    "self.ll.map(x, x.size())",
    "self.ns",
    "self.ns.filter(n, n > 2)",
    "self.ds",
    "[self.d]",
    "self.b.split(',', -1)",
    "self.b.split(',', 0)",
    "self.s.split(self.b)",
    "self.objs.filter(o, has(o.name))",
  ];
  for (const a of S2)
    for (const b of S2)
      rules.push(`${a} == ${b}`, `${a}.contains(${b})`, `${a} + ${b} == 'x'`, `${a}.matches(${b})`);
  for (const l of L2)
    rules.push(
      `${l}.size() > 0`,
      `${l}.all(x, string(x).size() > 0)`,
      `${l}.exists(x, x == ${l}[0])`,
      `size(${l}.map(x, ${l})) > 0`,
      `${l}.isSorted()`,
      `${l}.exists_one(x, x == ${l}[0])`,
      `${l}.map(x, string(x)).join(',').size() > 0`,
      `sets.equivalent(${l}, ${l})`,
      `sets.intersects(${l}, [${l}[0]])`,
      `${l} + ${l} == ${l}`,
    );
  for (const r of [
    "self.m.all(k, v, v.contains(k))",
    "self.l.all(i, v, v.size() > i)",
    "self.m.exists(k, v, k == v)",
    "self.objs.all(i, o, o.name.size() > i)",
    "self.m.transformList(k, v, k + v).size() > 0",
    "self.l.transformMap(i, v, v + 'a').size() > 0",
    "self.l.transformList(i, v, v).join().size() > 0",
    "quantity(self.b).add(quantity(self.b)).sub(1).isGreaterThan(quantity('1'))",
    "quantity(self.b).asApproximateFloat() > 1.0",
    "quantity(self.s) == quantity(self.b)",
    "cidr(self.ip).containsIP(self.ip)",
    "cidr(self.ip).containsCIDR(self.ip)",
    "cidr(self.ip).containsIP(ip(self.ip))",
    "cidr(self.ip) == cidr(self.b)",
    "ip(self.ip) == ip(self.s)",
    "isCIDR(self.s)",
    "ip.isCanonical(self.s)",
    "cidr(self.ip).ip().family() == 4",
    "cidr(self.ip).masked() == cidr(self.ip)",
    "cidr(self.ip).prefixLength() > 4",
    "url(self.s).getScheme() == 'https'",
    "url(self.b) == url(self.s)",
    "url(self.b).getQuery().size() > 0",
    "isURL(self.s)",
    "self.d < timestamp('2020-01-01T00:00:00Z')",
    "self.du > duration('1s')",
    "self.d + self.du > self.d",
    "duration(self.b) > duration('1s')",
    "timestamp(self.b) > self.d",
    "self.ns.sum() > 0",
    "self.ns.min() < self.ns.max()",
    "self.l.min() < self.l.max()",
    "self.u.max() == 'a'",
    "self.l.lastIndexOf('a') > 0",
    "self.u.indexOf(self.b) > 0",
    "self.s.lastIndexOf(self.b) > 0",
    "self.b.lastIndexOf(self.s) > 0",
    "self.objs.all(o, o.name.matches(self.s))",
    "self.objs.all(o, self.objs.all(p, o.name == p.name))",
    "self.u.all(x, self.u.all(y, x == y))",
    "self.m.all(k, self.m[k].contains(k))",
    "self.m.all(k, self.m.exists(j, j == k))",
    "'%s and %d'.format([self.s, self.n]) == 'x'",
    "'%s'.format([self.u]).size() > 0",
    "bytes(self.b).size() > 0",
    "string(bytes(self.s)) == 'x'",
    "bytes(self.s) == b'abc'",
    "self.bb.size() > 0",
    "self.bb == b'x'",
    "string(self.bb) + 'x' == 'y'",
    "format.dns1123Label().validate(self.s).hasValue()",
    "format.named(self.b).hasValue()",
    "format.named(self.b) == optional.of(format.uuid())",
    "optional.of(self.s).orValue('') == self.b",
    "optional.of(self.s).value().contains('a')",
    "self.l.first().value().contains(self.s)",
    "[self.?b].unwrapOpt()[0].contains(self.s)",
    "semver(self.b).major() > 0",
    "isSemver(self.s)",
    "semver(self.b) == semver(self.s)",
    "semver(self.b).isGreaterThan(semver('1.0.0'))",
    "self.io == 1 || self.io == 'a'",
    "string(self.io).contains(self.b)",
    "int(self.b) > 0",
    "double(self.n) > 1.0",
    "uint(self.n) > 1u",
    "self.n % 2 == 0 && self.n / 2 > 1",
    "type(self.b) == string",
    "type(self.objs) == list",
    "has(self.o.x) && self.o.x.size() > 0",
    "self.l.filter(x, x.startsWith('a')).map(x, x + x).all(y, y.endsWith(self.s))",
  ])
    rules.push(r);

  return rules;
}

const bounded = { type: "string", maxLength: 10 };
export const spec = {
  type: "object",
  properties: {
    s: { type: "string" },
    b: bounded,
    n: { type: "integer" },
    l: { type: "array", maxItems: 10, items: bounded },
    u: { type: "array", items: { type: "string" } },
    ll: { type: "array", maxItems: 5, items: { type: "array", maxItems: 5, items: bounded } },
    ns: { type: "array", maxItems: 10, items: { type: "integer" } },
    m: { type: "object", maxProperties: 10, additionalProperties: bounded },
    e: { type: "string", enum: ["a", "bb"] },
    d: { type: "string", format: "date-time" },
    o: { type: "object", properties: { x: bounded } },
    io: { "x-kubernetes-int-or-string": true },
    du: { type: "string", format: "duration" },
    ds: { type: "array", maxItems: 4, items: { type: "string", format: "date-time" } },
    ip: { type: "string", maxLength: 45 },
    bb: { type: "string", format: "byte" },
    objs: { type: "array", items: { type: "object", required: ["name"], properties: { name: bounded } } },
  },
};
