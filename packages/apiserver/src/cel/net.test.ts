// The IP and CIDR libraries against the examples of kube's own documentation (library/ip.go and
// cidr.go) and Go's netip parsing rules and error words.
import assert from "node:assert/strict";
import { test } from "node:test";
import { celEnv, isCelError, parse, plan } from "@bufbuild/cel";
import { kubernetesLibraries } from "./kubernetes-libs.js";
import { addrString, parseAddr } from "./net.js";

const env = celEnv({ funcs: kubernetesLibraries });
const evaluate = (expr: string) => (plan(env, parse(expr)) as (ctx: object) => unknown)({});

test("kube's documented IP examples hold", () => {
  for (const expr of [
    "isIP('127.0.0.1') && isIP('::1') && !isIP('127.0.0.256') && !isIP(':::1')",
    "ip.isCanonical('127.0.0.1') && ip.isCanonical('2001:db8::abcd')",
    "!ip.isCanonical('2001:DB8::ABCD') && !ip.isCanonical('2001:db8::0:0:0:abcd')",
    "ip('127.0.0.1').family() == 4 && ip('::1').family() == 6",
    "ip('0.0.0.0').isUnspecified() && !ip('127.0.0.1').isUnspecified() && ip('::').isUnspecified() && !ip('::1').isUnspecified()",
    "ip('127.0.0.1').isLoopback() && !ip('192.168.0.1').isLoopback() && ip('::1').isLoopback() && !ip('2001:db8::abcd').isLoopback()",
    "ip('224.0.0.1').isLinkLocalMulticast() && !ip('224.0.1.1').isLinkLocalMulticast() && ip('ff02::1').isLinkLocalMulticast() && !ip('fd00::1').isLinkLocalMulticast()",
    "ip('169.254.169.254').isLinkLocalUnicast() && !ip('192.168.0.1').isLinkLocalUnicast() && ip('fe80::1').isLinkLocalUnicast() && !ip('fd80::1').isLinkLocalUnicast()",
    "ip('192.168.0.1').isGlobalUnicast() && !ip('255.255.255.255').isGlobalUnicast() && ip('2001:db8::abcd').isGlobalUnicast() && !ip('ff00::1').isGlobalUnicast()",
    "ip('2001:DB8::0:0:0:ABCD') == ip('2001:db8::abcd')",
    "string(ip('2001:DB8::0:0:0:ABCD')) == '2001:db8::abcd'",
  ]) {
    assert.equal(evaluate(expr), true, expr);
  }
});

test("kube's documented CIDR examples hold", () => {
  for (const expr of [
    "isCIDR('192.168.0.0/16') && isCIDR('::1/128') && !isCIDR('192.168.0.0/33') && !isCIDR('::1/129')",
    "cidr('192.168.0.0/16').containsIP(ip('192.168.0.1')) && !cidr('192.168.0.0/16').containsIP(ip('192.169.0.1'))",
    "cidr('192.168.0.0/16').containsIP('192.168.0.1') && cidr('::1/128').containsIP('::1') && !cidr('::1/128').containsIP('::2')",
    "cidr('192.168.0.0/24').containsCIDR(cidr('192.168.0.0/25')) && cidr('192.168.0.0/16').containsCIDR('192.168.10.0/24')",
    "!cidr('192.168.0.0/24').containsCIDR('192.168.0.0/23') && cidr('::1/128').containsCIDR('::1/128') && !cidr('::1/128').containsCIDR('::2/128')",
    "cidr('192.168.0.1/24').ip() == ip('192.168.0.1') && cidr('192.168.0.1/24').ip().family() == 4 && cidr('::1/128').ip().family() == 6",
    "cidr('192.168.0.1/24').masked() == cidr('192.168.0.0/24') && cidr('192.168.0.0/24') == cidr('192.168.0.0/24').masked()",
    "cidr('192.168.0.1/24') != cidr('192.168.0.1/24').masked()",
    "cidr('192.168.0.0/16').prefixLength() == 16 && cidr('::1/128').prefixLength() == 128",
    "string(cidr('2001:DB8::/32')) == '2001:db8::/32'",
    "!cidr('10.0.0.0/8').containsIP('::1')",
  ]) {
    assert.equal(evaluate(expr), true, expr);
  }
});

test("parse errors in Go's words; zones and IPv4-mapped addresses refused", () => {
  const err = (expr: string) => {
    const r = evaluate(expr);
    assert.ok(isCelError(r), `${expr} fails`);
    return r.message;
  };
  assert.equal(
    err("ip('127.0.0.256')"),
    'IP Address "127.0.0.256" parse error during conversion from string: ParseAddr("127.0.0.256"): IPv4 field has value >255',
  );
  assert.equal(
    err("ip('1.2.3.04')"),
    'IP Address "1.2.3.04" parse error during conversion from string: ParseAddr("1.2.3.04"): IPv4 field has octet with leading zero',
  );
  assert.equal(
    err("ip(':::1')"),
    'IP Address ":::1" parse error during conversion from string: ParseAddr(":::1"): each colon-separated field must have at least one digit (at ":1")',
  );
  assert.equal(err("ip('fe80::1%eth0')"), 'IP address "fe80::1%eth0" with zone value is not allowed');
  assert.equal(err("ip('::ffff:1.2.3.4')"), 'IPv4-mapped IPv6 address "::ffff:1.2.3.4" is not allowed');
  // cidr() wraps its parser's error in the same words again, as kube-apiserver 1.37 answers.
  const wrapped = "network address parse error during conversion from string: ";
  assert.equal(
    err("cidr('10.0.0.0/33')"),
    wrapped +
      'network address parse error during conversion from string: netip.ParsePrefix("10.0.0.0/33"): prefix length out of range',
  );
  assert.equal(
    err("cidr('10.0.0.0')"),
    `${wrapped}network address parse error during conversion from string: netip.ParsePrefix("10.0.0.0"): no '/'`,
  );
  assert.equal(
    err("cidr('10.0.0.0/08')"),
    `${wrapped}network address parse error during conversion from string: netip.ParsePrefix("10.0.0.0/08"): bad bits after slash: "08"`,
  );
});

test("netip's parser and canonical form", () => {
  const canonical = (s: string) => addrString(parseAddr(s).addr);
  assert.equal(canonical("2001:0db8:0000:0000:0000:0000:0000:0001"), "2001:db8::1");
  assert.equal(canonical("1:0:0:2:0:0:0:3"), "1:0:0:2::3", "the longest zero run");
  assert.equal(canonical("1:0:0:2:0:0:3:4"), "1::2:0:0:3:4", "the first of equal runs");
  assert.equal(canonical("1:2:3:4:5:6:0:8"), "1:2:3:4:5:6:0:8", "a single zero field stays");
  assert.equal(canonical("::"), "::");
  assert.equal(canonical("::1.2.3.4"), "::102:304");
  for (const bad of ["", "1.2.3", "1.2.3.4.5", "1..2.3", "1:2:3:4:5:6:7:8:9", "1::2::3", "12345::", "g::"]) {
    assert.throws(() => parseAddr(bad), bad);
  }
});
